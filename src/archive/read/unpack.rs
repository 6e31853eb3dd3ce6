//! Writing an archive's files out ([`Archive::unpack`]), each as
//! verification resolves it.

use super::{Archive, Report};
use crate::archive::ArchiveError;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

impl Archive {
    /// Writes the archive's files under `dir` (which must be empty or
    /// absent): the top `info.txt`, and per map folder `info.txt`,
    /// `toc.txt`, `log.txt`, `demodata.bin` and the checkpoints, each as
    /// [`verify`](Archive::verify) resolves it (rebuilt where missing or
    /// wrong). `index.txt` describes the packed file only and is left out.
    pub fn unpack(&self, dir: &Path) -> Result<Report, ArchiveError> {
        let failed = |p: &Path, e: io::Error| ArchiveError::io(p, e);
        if dir.exists() {
            let mut entries = fs::read_dir(dir).map_err(|e| failed(dir, e))?;
            if entries.next().is_some() {
                return Err(ArchiveError::NotEmpty {
                    dir: dir.to_path_buf(),
                });
            }
        }
        let report = self.verify();
        fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
        let write = |p: PathBuf, bytes: &[u8]| fs::write(&p, bytes).map_err(|e| failed(&p, e));
        write(dir.join("info.txt"), report.top_text.as_bytes())?;
        for map in &report.maps {
            let folder = dir.join(map.map.to_string());
            fs::create_dir_all(&folder).map_err(|e| failed(&folder, e))?;
            for (name, bytes) in &map.resolved {
                write(folder.join(name), bytes)?;
            }
            if let Some(rec) = map.recording {
                let path = folder.join("demodata.bin");
                let file = File::create(&path).map_err(|e| failed(&path, e))?;
                let mut out = BufWriter::new(file);
                let mut r = self
                    .member_reader(rec, 0)
                    .map_err(|problem| ArchiveError::Member {
                        path: self.path.clone(),
                        member: self.members[rec].name.clone(),
                        problem,
                    })?;
                io::copy(&mut r, &mut out).map_err(|e| failed(&path, e))?;
                out.flush().map_err(|e| failed(&path, e))?;
            }
        }
        Ok(report)
    }
}
