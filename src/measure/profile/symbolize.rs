//! Names the addresses of a [`RawProfile`] and sorts its samples into
//! categories: kernel addresses from /proc/kallsyms, user addresses from the
//! ELF files (their symbols and DWARF, which also names the functions inlined
//! at an address), all with blazesym.
//!
//! It runs in the parent, after each trial and outside every clock, with one
//! [`Namer`] for the whole run: kallsyms and each binary's DWARF are parsed
//! once, and an address named once is never looked up again. (Naming in each
//! child cost 50–215 ms per trial in the prototype, most of it parsing the
//! same files again.)
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use blazesym::symbolize::source::{Elf, Kernel, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use blazesym::MaybeDefault;

use super::categories::{classify, fold, Frame};
use super::raw::{RawProfile, UNMAPPED};
use super::{ProfileMode, TrialProfile};

/// The name given to an address nothing could name.
pub const UNKNOWN: &str = "[unknown]";

/// Stacks are kept from the outermost frame of faultline's trial code down:
/// the frames above it (the Rust runtime's start, a thread's start) are the
/// same in every sample, say nothing, and would make every stack 1 KB longer.
pub const ROOT_PREFIX: &str = concat!("faultline", "::trial::");

/// `leaf_first` without the frames above its outermost [`ROOT_PREFIX`] frame
/// (all of it when it has none: a stack the unwinder cut short).
pub fn trim_root(leaf_first: &mut Vec<Frame>) {
    if let Some(root) = leaf_first
        .iter()
        .rposition(|f| !f.kernel && f.name.starts_with(ROOT_PREFIX))
    {
        leaf_first.truncate(root + 1);
    }
}

/// Names addresses for a whole run, remembering every name it found.
pub struct Namer {
    symbolizer: Symbolizer,
    kernel: HashMap<u64, Vec<Frame>>,
    user: HashMap<(PathBuf, u64), Vec<Frame>>,
    /// Whether the file at a path still has the build id a child saw.
    same_file: HashMap<(PathBuf, Option<String>), bool>,
}

impl Default for Namer {
    fn default() -> Self {
        Namer::new()
    }
}

/// The frames (leaf first: the innermost inlined function first) of one
/// symbolized address.
fn frames_of(sym: &Symbolized<'_>, kernel: bool) -> Vec<Frame> {
    match sym {
        Symbolized::Sym(s) => {
            let mut v: Vec<Frame> = s
                .inlined
                .iter()
                .rev()
                .map(|f| Frame {
                    name: f.name.to_string(),
                    kernel,
                    inlined: true,
                })
                .collect();
            v.push(Frame {
                name: s.name.to_string(),
                kernel,
                inlined: false,
            });
            v
        }
        Symbolized::Unknown(_) => vec![unknown(kernel)],
    }
}

fn unknown(kernel: bool) -> Frame {
    Frame {
        name: UNKNOWN.to_string(),
        kernel,
        inlined: false,
    }
}

/// The build id of the ELF file at `path`, in hex.
fn build_id_of(path: &Path) -> Option<String> {
    blazesym::helper::read_elf_build_id(path)
        .ok()
        .flatten()
        .map(|id| id.iter().map(|b| format!("{b:02x}")).collect())
}

impl Namer {
    /// A namer with nothing parsed yet.
    pub fn new() -> Namer {
        Namer {
            symbolizer: Symbolizer::builder()
                .enable_code_info(true)
                .enable_inlined_fns(true)
                .enable_demangling(true)
                .build(),
            kernel: HashMap::new(),
            user: HashMap::new(),
            same_file: HashMap::new(),
        }
    }

    /// Looks up `addresses` (not yet known) from `source`, as a batch, or
    /// one by one when the batch fails (one unreadable file fails a whole
    /// batch; then only the addresses that fail stay unnamed).
    fn lookup(&self, source: &Source<'_>, input: &[u64], kernel: bool) -> Vec<Vec<Frame>> {
        let batch = match source {
            Source::Kernel(_) => Input::AbsAddr(input),
            _ => Input::FileOffset(input),
        };
        match self.symbolizer.symbolize(source, batch) {
            Ok(syms) => syms.iter().map(|s| frames_of(s, kernel)).collect(),
            Err(_) => input
                .iter()
                .map(|&a| {
                    let one = match source {
                        Source::Kernel(_) => Input::AbsAddr(a),
                        _ => Input::FileOffset(a),
                    };
                    match self.symbolizer.symbolize_single(source, one) {
                        Ok(sym) => frames_of(&sym, kernel),
                        Err(_) => vec![unknown(kernel)],
                    }
                })
                .collect(),
        }
    }

    fn name_kernel(&mut self, raw: &RawProfile) {
        let mut missing: Vec<u64> = raw
            .stacks
            .iter()
            .flat_map(|s| s.kernel.iter().copied())
            .filter(|a| !self.kernel.contains_key(a))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return;
        }
        let source = Source::Kernel(Kernel {
            kallsyms: MaybeDefault::Default,
            // No vmlinux search: none is installed on most machines, and
            // kallsyms names every function the categories look for.
            vmlinux: MaybeDefault::None,
            debug_syms: false,
            ..Default::default()
        });
        let named = self.lookup(&source, &missing, true);
        self.kernel.extend(missing.into_iter().zip(named));
    }

    fn name_user(&mut self, raw: &RawProfile) {
        for (index, object) in raw.objects.iter().enumerate() {
            let same = *self
                .same_file
                .entry((object.path.clone(), object.build_id.clone()))
                .or_insert_with(|| {
                    object.build_id.is_none() || build_id_of(&object.path) == object.build_id
                });
            let mut missing: Vec<u64> = raw
                .stacks
                .iter()
                .flat_map(|s| s.user.iter())
                .filter(|(o, _)| *o == index as u32)
                .map(|&(_, offset)| offset)
                .filter(|&offset| !self.user.contains_key(&(object.path.clone(), offset)))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            if missing.is_empty() {
                continue;
            }
            let named = if same {
                let source = Source::Elf(Elf::new(object.path.clone()));
                self.lookup(&source, &missing, false)
            } else {
                // The file was replaced after the trial: its names would lie.
                let name = format!(
                    "[{} changed since the trial]",
                    object
                        .path
                        .file_name()
                        .map_or("a file".into(), |n| n.to_string_lossy())
                );
                vec![
                    vec![Frame {
                        name,
                        kernel: false,
                        inlined: false
                    }];
                    missing.len()
                ]
            };
            for (offset, frames) in missing.into_iter().zip(named) {
                self.user.insert((object.path.clone(), offset), frames);
            }
        }
    }

    /// Names every address of `raw`, then folds and classifies each stack.
    pub fn name(&mut self, raw: &RawProfile) -> TrialProfile {
        if raw.mode == ProfileMode::KernelUser {
            self.name_kernel(raw);
        }
        self.name_user(raw);
        let mut profile = TrialProfile {
            mode: raw.mode,
            frequency_hz: raw.frequency_hz,
            samples: raw.samples,
            lost: raw.lost,
            throttled: raw.throttled,
            unnamed: 0,
            threads: raw.threads,
            thread_samples: raw.thread_samples.clone(),
            drain_cpu_ns: raw.drain_cpu_ns,
            categories: BTreeMap::new(),
            stacks: BTreeMap::new(),
        };
        let mut frames = Vec::new();
        for stack in &raw.stacks {
            frames.clear();
            for a in &stack.kernel {
                match self.kernel.get(a) {
                    Some(f) => frames.extend(f.iter().cloned()),
                    None => frames.push(unknown(true)),
                }
            }
            for &(object, offset) in &stack.user {
                let known = raw
                    .objects
                    .get(object as usize)
                    .filter(|_| object != UNMAPPED)
                    .and_then(|o| self.user.get(&(o.path.clone(), offset)));
                match known {
                    Some(f) => frames.extend(f.iter().cloned()),
                    None => frames.push(unknown(false)),
                }
            }
            if frames.first().is_none_or(|leaf| leaf.name.starts_with('[')) {
                profile.unnamed += stack.count;
            }
            *profile.categories.entry(classify(&frames)).or_default() += stack.count;
            trim_root(&mut frames);
            *profile.stacks.entry(fold(&frames)).or_default() += stack.count;
        }
        profile
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::profile::categories::Category;
    use crate::measure::profile::raw::{Object, RawStack};

    #[inline(never)]
    fn a_named_function() -> u64 {
        std::hint::black_box(42)
    }

    /// This binary's own function, normalized as a child would, is named.
    #[test]
    fn names_own_addresses() {
        let own = a_named_function as fn() -> u64 as usize as u64;
        let chains = crate::measure::profile::sampler::Chains {
            samples: 3,
            chains: [(vec![own], 3)].into_iter().collect(),
            ..Default::default()
        };
        let raw = RawProfile::from_chains(&chains, ProfileMode::UserOnly, 997).unwrap();
        let profile = Namer::new().name(&raw);
        let (stack, count) = profile.stacks.iter().next().unwrap();
        assert_eq!(*count, 3);
        assert!(stack.ends_with("a_named_function"), "{stack}");
        assert_eq!(profile.categories[&Category::OtherUser], 3);
    }

    /// A kernel address from kallsyms is named (only root sees kallsyms
    /// addresses; others read zeros).
    #[test]
    #[ignore = "needs root"]
    fn names_kernel_addresses() {
        let kallsyms = std::fs::read_to_string("/proc/kallsyms").unwrap();
        let address = kallsyms
            .lines()
            .find(|l| l.ends_with(" T do_syscall_64"))
            .and_then(|l| u64::from_str_radix(l.split(' ').next()?, 16).ok())
            .filter(|&a| a != 0)
            .expect("root sees kallsyms addresses: run this test as root");
        let raw = RawProfile {
            mode: ProfileMode::KernelUser,
            samples: 1,
            stacks: vec![RawStack {
                kernel: vec![address + 1],
                user: vec![],
                count: 1,
            }],
            ..Default::default()
        };
        let profile = Namer::new().name(&raw);
        assert_eq!(
            profile.stacks.keys().next().unwrap(),
            "do_syscall_64_[k]",
            "{profile:?}"
        );
        assert_eq!(profile.categories[&Category::Syscall], 1);
    }

    #[test]
    fn stacks_start_at_the_trials_own_code() {
        let mut frames = crate::measure::profile::categories::unfold(
            "__libc_start_call_main;main;std::rt::lang_start_internal;faultline::trial::child_main;faultline::trial::run_trial;<faultline::method::read::ReadMethod as faultline::method::Method>::run;read;entry_SYSCALL_64_[k]",
        );
        trim_root(&mut frames);
        assert_eq!(
            fold(&frames),
            "faultline::trial::child_main;faultline::trial::run_trial;<faultline::method::read::ReadMethod as faultline::method::Method>::run;read;entry_SYSCALL_64_[k]"
        );
        // No trial frame (the unwinder stopped early): kept whole.
        let mut short =
            crate::measure::profile::categories::unfold("x;__memmove_avx_unaligned_erms");
        trim_root(&mut short);
        assert_eq!(short.len(), 2);
    }

    #[test]
    fn a_replaced_file_is_not_named_from_its_new_contents() {
        let raw = RawProfile {
            mode: ProfileMode::UserOnly,
            samples: 2,
            objects: vec![Object {
                path: std::env::current_exe().unwrap(),
                build_id: Some("00".into()),
            }],
            stacks: vec![RawStack {
                kernel: vec![],
                user: vec![(0, 0x1000), (UNMAPPED, 0x7fff_0000)],
                count: 2,
            }],
            ..Default::default()
        };
        let profile = Namer::new().name(&raw);
        let stack = profile.stacks.keys().next().unwrap();
        assert!(stack.ends_with("changed since the trial]"), "{stack}");
        assert!(stack.starts_with("[unknown]"), "{stack}");
        // Counted, in a category, and said to be unnamed.
        assert_eq!(profile.unnamed, 2);
        assert_eq!(profile.categorised(), 2);
    }
}
