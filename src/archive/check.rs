//! The archive format for [`crate::check`]: every member verified against
//! its recordings ([`Archive::verify`]).

use super::{Archive, MemberOutcome, OpenOptions, frames::is_tar_header};
use crate::input::Source;
use crate::report::{Code, Context, Finding, Format, RoundTrip, Severity, Verdict};
use std::io;

/// The recording archive format (a TAR file, plain or compressed).
pub struct ArchiveFormat;

impl Format for ArchiveFormat {
    fn name(&self) -> &'static str {
        "archive"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[
            ".tar", ".tar.bz2", ".tbz2", ".tar.gz", ".tgz", ".tar.xz", ".tar.zst",
        ]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        head.len() >= 512 && is_tar_header(&head[..512])
    }

    fn check(&self, source: Source, _: &Context<'_>, verdict: &mut Verdict) {
        // The archive reader seeks: a file is read in place (through its
        // own compression), anything else is spooled to a temporary file.
        let spooled;
        let options = OpenOptions {
            full: true,
            max_decompressed: source.max_decompressed(),
        };
        let opened = match source.path() {
            Some(path) => Archive::open_with(path, &options),
            None => {
                let spool = || -> io::Result<tempfile::NamedTempFile> {
                    let mut tmp = tempfile::NamedTempFile::new()?;
                    io::copy(&mut source.into_reader()?, &mut tmp)?;
                    Ok(tmp)
                };
                match spool() {
                    Ok(tmp) => {
                        spooled = tmp;
                        Archive::open_with(spooled.path(), &options)
                    }
                    Err(e) => {
                        verdict.push(Finding::new(
                            Severity::Fail,
                            Code::Io,
                            format!("cannot read: {e}"),
                        ));
                        verdict.settle();
                        return;
                    }
                }
            }
        };
        match opened {
            Err(e) => verdict.push(Finding::new(Severity::Fail, Code::Archive, e.to_string())),
            // (`archive`: the file cannot be opened as an archive at all.)
            Ok(archive) => {
                let r = archive.verify();
                verdict.counts.records = Some(r.maps.iter().map(|m| m.records).sum());
                verdict.counts.last_tick = r.maps.last().map(|m| m.last_tick);
                let agree: usize = r.maps.iter().map(|m| m.checkpoints_agree).sum();
                verdict.counts.more.insert("maps", r.maps.len() as u64);
                verdict
                    .counts
                    .more
                    .insert("checkpoints_agree", agree as u64);
                verdict.roundtrip = RoundTrip::NotChecked;
                for v in &r.verdicts {
                    // A recording's findings are the teehistorian check's,
                    // named by the member they are in.
                    for f in &v.findings {
                        let mut f = f.clone();
                        f.message = format!("{}: {}", v.member, f.message);
                        verdict.push(f);
                    }
                    let worst = v.findings.iter().map(|f| f.severity).max();
                    let said = match v.status {
                        MemberOutcome::Failed => worst == Some(Severity::Fail),
                        MemberOutcome::Warn => worst >= Some(Severity::Warn),
                        _ => !v.findings.is_empty(),
                    };
                    if said {
                        continue;
                    }
                    let Some(severity) = v.status.severity() else {
                        continue;
                    };
                    verdict.push(Finding::new(
                        severity,
                        Code::Member,
                        format!("{}: {}", v.member, v.detail),
                    ));
                }
                let count = |s: MemberOutcome| r.verdicts.iter().filter(|v| v.status == s).count();
                verdict.summary = format!(
                    "{} map(s), {} records, {agree} checkpoint(s) agree; {} rebuilt, {} failed",
                    r.maps.len(),
                    verdict.counts.records.unwrap_or(0),
                    count(MemberOutcome::Rebuilt),
                    count(MemberOutcome::Failed)
                );
            }
        }
        verdict.settle();
    }
}
