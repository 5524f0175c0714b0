//! The output as it is written: a directory staged beside the destination
//! ([`StagedDir`]), chunk files written directly and synced together at the end
//! ([`write_chunk`], [`sync_all`]), moved into place only when complete.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArrayToBytesCodecTraits, CodecOptions};
use zarrs::filesystem::FilesystemStore;

use crate::node::parent_of;
use crate::pad::{Run, Stage};
use crate::ZarrError;

/// A directory beside the destination that is removed when dropped, unless moved
/// into place.
pub(crate) struct StagedDir {
    pub(crate) tmp: PathBuf,
    dest: PathBuf,
    keep: bool,
    written: Mutex<Vec<PathBuf>>,
}

impl StagedDir {
    /// A new empty directory beside `dest`.
    pub(crate) fn new(dest: &Path) -> Result<StagedDir, ZarrError> {
        let parent = parent_of(dest);
        let name = dest
            .file_name()
            .map_or("output".into(), |n| n.to_string_lossy().into_owned());
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let fail = |source| ZarrError::Write {
            path: dest.to_path_buf(),
            action: "cannot create a temporary directory in its directory",
            source,
        };
        for attempt in 0..100u32 {
            let tmp = parent.join(format!(
                ".{name}.ndpad-{}-{nanos:x}-{attempt}.tmp",
                std::process::id()
            ));
            // A plain mkdir: permissions as the umask gives them.
            match fs::create_dir(&tmp) {
                Ok(()) => {
                    return Ok(StagedDir {
                        tmp,
                        dest: dest.to_path_buf(),
                        keep: false,
                        written: Mutex::new(Vec::new()),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(fail(e)),
            }
        }
        Err(fail(std::io::ErrorKind::AlreadyExists.into()))
    }

    /// Writes the metadata `json` into the directory; the zarrs array of it (less
    /// its attributes, which zarrs does not need) over the directory's store.
    pub(crate) fn create_array(
        &self,
        json: &serde_json::Value,
    ) -> Result<Array<FilesystemStore>, ZarrError> {
        let out_err = |source| ZarrError::Zarrs {
            path: self.dest.clone(),
            source,
        };
        let store = FilesystemStore::new(&self.tmp).map_err(|e| out_err(Box::new(e)))?;
        let text = serde_json::to_vec_pretty(json).map_err(|e| out_err(Box::new(e)))?;
        fs::write(self.tmp.join("zarr.json"), text).map_err(|source| ZarrError::Write {
            path: self.dest.clone(),
            action: "cannot write",
            source,
        })?;
        let meta = crate::array_metadata(json).map_err(|e| ZarrError::At {
            path: self.dest.clone(),
            source: Box::new(e),
        })?;
        Array::new_with_metadata(Arc::new(store), "/", ArrayMetadata::V3(meta))
            .map_err(|e| out_err(Box::new(e)))
    }

    /// Encodes one chunk with the array's codecs and writes it to its file (recorded
    /// for [`StagedDir::finish`]). zarrs' store would sync each chunk's file as it is
    /// written, leaving a thread idle for the disk on every chunk; these files are
    /// synced together once all are written. Arrays with storage transformers go
    /// through the store (`direct` false).
    pub(crate) fn write_chunk(
        &self,
        out: &Array<FilesystemStore>,
        idx: &[u64],
        data: ArrayBytes<'_>,
        opts: &CodecOptions,
        direct: bool,
    ) -> Result<(), ZarrError> {
        use crate::codec;
        if !direct {
            return out.store_chunk_opt(idx, data, opts).map_err(codec);
        }
        let shape = out.chunk_shape(idx).map_err(codec)?;
        let encoded = out
            .codecs()
            .encode(data, &shape, out.data_type(), out.fill_value(), opts)
            .map_err(codec)?;
        let path = self.tmp.join(out.chunk_key(idx).as_str());
        let write_err = |path: &Path, source| ZarrError::Write {
            path: path.to_path_buf(),
            action: "cannot write",
            source,
        };
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| write_err(dir, e))?;
        }
        fs::write(&path, &encoded).map_err(|e| write_err(&path, e))?;
        // A poisoned list is still the list: every file in it must be synced.
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(path);
        Ok(())
    }

    /// Syncs the chunk files written into the directory, then moves it into place;
    /// neither once `run`'s interrupt asks to stop (the directory is then removed).
    pub(crate) fn finish(self, run: &Run) -> Result<(), ZarrError> {
        run.check()?;
        run.stage(Stage::Syncing);
        let files = std::mem::take(
            &mut *self
                .written
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        sync_all(&self.tmp, files)?;
        run.check()?;
        run.stage(Stage::Moving);
        self.commit()
    }

    /// Moves the directory into place, replacing what is there (atomically where the
    /// file system can exchange two names).
    fn commit(mut self) -> Result<(), ZarrError> {
        let fail = |source| ZarrError::Write {
            path: self.dest.clone(),
            action: "cannot move the result into place",
            source,
        };
        if fs::symlink_metadata(&self.dest).is_err() {
            fs::rename(&self.tmp, &self.dest).map_err(fail)?;
            self.keep = true;
            return Ok(());
        }
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{renameat_with, RenameFlags, CWD};
            if renameat_with(CWD, &self.tmp, CWD, &self.dest, RenameFlags::EXCHANGE).is_ok() {
                // The old output is now at the temporary name, removed on drop.
                return Ok(());
            }
        }
        // No exchange: the old output moves aside, the new one in, the old one away.
        let aside = self.tmp.with_extension("old");
        fs::rename(&self.dest, &aside).map_err(fail)?;
        if let Err(e) = fs::rename(&self.tmp, &self.dest) {
            let _ = fs::rename(&aside, &self.dest);
            return Err(fail(e));
        }
        self.keep = true;
        let _ = fs::remove_dir_all(&aside);
        Ok(())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Syncs the chunk files written (in parallel: most were written back while later
/// chunks were padded) and the directories holding them.
fn sync_all(root: &Path, files: Vec<PathBuf>) -> Result<(), ZarrError> {
    use rayon::prelude::*;
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs.push(root.to_path_buf());
    files.par_iter().chain(dirs.par_iter()).try_for_each(|p| {
        fs::File::open(p)
            .and_then(|f| f.sync_all())
            .map_err(|source| ZarrError::Write {
                path: p.clone(),
                action: "cannot sync",
                source,
            })
    })
}
