//! A trial's profile as the child sends it: call chains of addresses, the
//! user ones normalized by blazesym to (ELF file, file offset) while the
//! child's mappings still exist, so that the parent can name them later
//! without the child ([`super::symbolize`]). Normalizing is cheap (it reads
//! /proc/self/maps and each file's build id); naming is not, which is why it
//! waits for the parent, once per run.
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;

use blazesym::normalize::{NormalizeOpts, Normalizer, UserMeta};
use blazesym::Pid;
use perf_event_open_sys::bindings::{PERF_CONTEXT_KERNEL, PERF_CONTEXT_MAX, PERF_CONTEXT_USER};
use serde::{Deserialize, Serialize};

use super::sampler::Chains;
use super::ProfileMode;

/// An object file user addresses fall in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Object {
    /// Its path, as /proc/self/maps names it.
    pub path: PathBuf,
    /// Its GNU build id in hex, when it has one: the parent checks that the
    /// file at `path` is still this one before naming addresses in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_id: Option<String>,
}

/// Where a user address is: `[object, file offset]`, or `[UNMAPPED, address]`
/// for one that no file maps (the vDSO, anonymous code, a stale frame).
pub type UserAddr = (u32, u64);

/// The object index of a user address no file maps.
pub const UNMAPPED: u32 = u32::MAX;

/// One distinct call chain and how many samples had it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawStack {
    /// Kernel addresses, leaf first (return addresses already moved back
    /// into their call instruction).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernel: Vec<u64>,
    /// User addresses, leaf first, normalized (likewise moved back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user: Vec<UserAddr>,
    /// Samples with this chain.
    pub count: u64,
}

/// What the child sends the parent about its main loop's samples.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawProfile {
    /// Kernel and user, or user only.
    pub mode: ProfileMode,
    /// The asked-for rate, samples per CPU second.
    pub frequency_hz: u32,
    /// Sample records received.
    pub samples: u64,
    /// Samples the kernel dropped (its ring buffer was full).
    pub lost: u64,
    /// Times the kernel throttled the rate.
    pub throttled: u64,
    /// Distinct threads sampled.
    pub threads: u32,
    /// Samples of each thread sampled, most first.
    #[serde(default)]
    pub thread_samples: Vec<u64>,
    /// CPU time of the sampler's drain thread, ns.
    pub drain_cpu_ns: u64,
    /// The files user addresses fall in.
    pub objects: Vec<Object>,
    /// The distinct call chains.
    pub stacks: Vec<RawStack>,
}

/// Whether an address is in the kernel's half of the x86-64 (and arm64)
/// address space; used only for chains without `PERF_CONTEXT_*` markers.
fn looks_kernel(address: u64) -> bool {
    address >= 0xffff_8000_0000_0000
}

/// Splits a raw chain at its `PERF_CONTEXT_*` markers into kernel and user
/// addresses, leaf first. The first address of each side is the sampled
/// instruction and is kept; the others are return addresses and are moved
/// back by one byte, into the call (which names the caller's line and its
/// inlined functions correctly). User addresses below 4 KiB, which a
/// frame-pointer walk through code without frame pointers leaves at the
/// end, are dropped.
pub fn split_chain(chain: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let (mut kernel, mut user) = (Vec::new(), Vec::new());
    let mut side: Option<Option<bool>> = None; // Some(Some(true)): kernel
    let mut first = true;
    for &a in chain {
        if a >= PERF_CONTEXT_MAX {
            side = Some(match a {
                PERF_CONTEXT_KERNEL => Some(true),
                PERF_CONTEXT_USER => Some(false),
                _ => None, // hypervisor, guest: skipped
            });
            first = true;
            continue;
        }
        let is_kernel = match side {
            Some(Some(k)) => k,
            Some(None) => continue,
            None => looks_kernel(a),
        };
        let lookup = if first { a } else { a.saturating_sub(1) };
        first = false;
        if is_kernel {
            kernel.push(lookup);
        } else if a >= 4096 {
            user.push(lookup);
        }
    }
    (kernel, user)
}

impl RawProfile {
    /// Builds the profile of `chains`: splits them, normalizes every user
    /// address against this process's mappings (call it in the child, right
    /// after the loop, before anything is unmapped... or at least before any
    /// code is).
    pub fn from_chains(
        chains: &Chains,
        mode: ProfileMode,
        frequency_hz: u32,
    ) -> io::Result<RawProfile> {
        let split: Vec<(Vec<u64>, Vec<u64>, u64)> = chains
            .chains
            .iter()
            .map(|(c, &n)| {
                let (k, u) = split_chain(c);
                (k, u, n)
            })
            .collect();
        let mut unique: Vec<u64> = split.iter().flat_map(|s| s.1.iter().copied()).collect();
        unique.sort_unstable();
        unique.dedup();
        let (objects, placed) = normalize(&unique)?;
        let stacks = split
            .into_iter()
            .map(|(kernel, user, count)| RawStack {
                kernel,
                user: user.iter().map(|a| placed[a]).collect(),
                count,
            })
            .collect();
        Ok(RawProfile {
            mode,
            frequency_hz,
            samples: chains.samples,
            lost: chains.lost,
            throttled: chains.throttled,
            threads: chains.tids.len() as u32,
            thread_samples: {
                let mut each: Vec<u64> = chains.tids.values().copied().collect();
                each.sort_unstable_by(|a, b| b.cmp(a));
                each
            },
            drain_cpu_ns: chains.drain_cpu_ns,
            objects,
            stacks,
        })
    }
}

/// Normalizes sorted, distinct user addresses of this process: the objects
/// they fall in and where each address is.
fn normalize(sorted: &[u64]) -> io::Result<(Vec<Object>, HashMap<u64, UserAddr>)> {
    let mut placed = HashMap::with_capacity(sorted.len());
    if sorted.is_empty() {
        return Ok((Vec::new(), placed));
    }
    let normalizer = Normalizer::builder().enable_build_ids(true).build();
    let opts = NormalizeOpts {
        sorted_addrs: true,
        // /proc/self/map_files/ needs CAP_SYS_ADMIN; the paths in
        // /proc/self/maps do not (and the parent opens them by path anyway).
        map_files: false,
        ..Default::default()
    };
    let output = normalizer
        .normalize_user_addrs_opts(Pid::Slf, sorted, &opts)
        .map_err(|e| io::Error::other(format!("normalizing sampled addresses: {e}")))?;
    let mut objects = Vec::new();
    let mut index_of_meta: HashMap<usize, u32> = HashMap::new();
    for (&address, &(offset, meta)) in sorted.iter().zip(&output.outputs) {
        let at = match output.meta.get(meta) {
            Some(UserMeta::Elf(elf)) => {
                let index = *index_of_meta.entry(meta).or_insert_with(|| {
                    objects.push(Object {
                        path: elf.path.clone(),
                        build_id: elf
                            .build_id
                            .as_ref()
                            .map(|id| id.iter().map(|b| format!("{b:02x}")).collect()),
                    });
                    (objects.len() - 1) as u32
                });
                (index, offset)
            }
            _ => (UNMAPPED, address),
        };
        placed.insert(address, at);
    }
    Ok((objects, placed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_split_at_their_markers() {
        let chain = [
            PERF_CONTEXT_KERNEL,
            0xffff_ffff_8100_0010,
            0xffff_ffff_8100_0020,
            PERF_CONTEXT_USER,
            0x5555_0000,
            0x5555_1000,
            0x10,
        ];
        let (k, u) = split_chain(&chain);
        assert_eq!(k, [0xffff_ffff_8100_0010, 0xffff_ffff_8100_001f]);
        assert_eq!(u, [0x5555_0000, 0x5555_0fff]);
        // Without markers: the address tells the side.
        let (k, u) = split_chain(&[0xffff_ffff_8100_0010, 0x5555_0000]);
        assert_eq!((k.len(), u.len()), (1, 1));
    }

    #[inline(never)]
    fn a_function_of_this_binary() -> u64 {
        std::hint::black_box(7)
    }

    #[test]
    fn own_addresses_normalize_to_this_binary() {
        let own = a_function_of_this_binary as fn() -> u64 as usize as u64;
        let (objects, placed) = normalize(&[own]).unwrap();
        let (index, offset) = placed[&own];
        assert_ne!(index, UNMAPPED);
        let exe = std::fs::canonicalize(std::env::current_exe().unwrap()).unwrap();
        assert_eq!(
            std::fs::canonicalize(&objects[index as usize].path).unwrap(),
            exe
        );
        assert!(offset > 0 && offset < own, "{offset:#x} of {own:#x}");
        // Not an address of any file.
        let (_, placed) = normalize(&[4096 * 3]).unwrap();
        assert_eq!(placed[&(4096 * 3)].0, UNMAPPED);
    }
}
