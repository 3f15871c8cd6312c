//! Reports: the terminal table, verdict lines and the exports. Nothing here measures.
