#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where encoded bytes go: appended in order, the header patched at the end.
protocol ByteSink: AnyObject {
    func append(_ bytes: UnsafeRawBufferPointer) throws(EncodingError)
    /// Rewrites bytes already written (the header, once the sizes are known).
    func overwrite(at offset: Int, _ bytes: [UInt8]) throws(EncodingError)
    /// Makes the output final.
    func commit() throws(EncodingError)
    /// Abandons the output: nothing half-written is left behind.
    func discard()
}

extension ByteSink {
    func append(_ bytes: [UInt8]) throws(EncodingError) {
        // Array.withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(EncodingError) in try append(raw) }
        }
        try result.get()
    }
}

/// Bytes in memory.
final class MemorySink: ByteSink {
    var bytes: [UInt8] = []

    func append(_ bytes: UnsafeRawBufferPointer) { self.bytes.append(contentsOf: bytes) }

    func overwrite(at offset: Int, _ bytes: [UInt8]) {
        self.bytes.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }

    func commit() {}
    func discard() { bytes = [] }
}

/// A file written under a temporary name next to its destination and renamed into place by
/// `commit()`: a failed or abandoned conversion leaves neither a partial file nor a damaged
/// original (which may even be the sound being read).
///
/// Replacing a file keeps its permission bits (and its owner and group where the process may
/// set them); a new file gets 0666 less the umask, as any program's would. The data reaches
/// the disk before the rename and the rename before `commit()` returns, so a crash leaves the
/// old file or the new one under the name, never an empty one.
final class FileSink: ByteSink {
    /// NUL-terminated paths, as the system calls take them: a name need not be UTF-8.
    private let destination: [CChar]
    private let temporaryPath: [CChar]
    private let folder: [CChar]
    private var descriptor: Int32
    private var written = 0

    /// - Parameter path: the destination's bytes, without a terminating NUL.
    init(path: [UInt8]) throws(EncodingError) {
        guard !path.isEmpty, !path.contains(0) else { throw .init(.io, "cannot create: not a valid path") }
        var target = path
        var info = stat()
        if lstat(Self.cString(path), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(Self.cString(path), nil) {
            // Write through a symbolic link to its file rather than replace the link.
            target = Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
            free(resolved)
        }
        // The file being replaced, if any: its kind is checked, its mode and owner kept.
        var replaced: stat?
        if stat(Self.cString(target), &info) == 0 {
            if info.st_mode & S_IFMT != S_IFREG {
                throw .init(.io, info.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is not a regular file")
            }
            replaced = info
        }
        destination = Self.cString(target)
        let slash = target.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { Array(target[...$0]) } ?? []
        let name = slash.map { Array(target[($0 + 1)...]) } ?? target
        folder = Self.cString(directory.isEmpty ? Array(".".utf8) : directory)
        // A file being replaced may be private: its replacement is readable by no one else
        // until it has the same mode. A new file starts as it will stay, 0666 less the umask.
        let creationMode: mode_t = replaced == nil ? 0o666 : 0o600
        var attempt = 0
        while true {
            let candidate = Self.cString(directory + Array(".".utf8) + name + Array(".noti-play-\(getpid())-\(attempt)".utf8))
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, creationMode)
            if fd >= 0 {
                temporaryPath = candidate
                descriptor = fd
                break
            }
            if errno == EINTR { continue }
            guard errno == EEXIST, attempt < 100 else { throw Self.failure("cannot create", errno) }
            attempt += 1
        }
        if let replaced {
            do throws(EncodingError) { try keepOwnerAndMode(of: replaced) } catch {
                discard()
                throw error
            }
        }
    }

    deinit { discard() }

    static func failure(_ what: String, _ code: Int32) -> EncodingError {
        .init(.io, "\(what): \(String(cString: strerror(code)))")
    }

    private static func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    /// Gives the temporary file the replaced file's owner, group and permission bits.
    private func keepOwnerAndMode(of replaced: stat) throws(EncodingError) {
        if replaced.st_uid != geteuid() || replaced.st_gid != getegid() {
            // Only root may give a file away; a member of the file's group may still keep the
            // group. Where neither is allowed the file stays ours, as with any editor's save.
            if fchown(descriptor, replaced.st_uid, replaced.st_gid) != 0 {
                _ = fchown(descriptor, uid_t.max, replaced.st_gid)  // uid_t.max (-1): owner unchanged
            }
        }
        // The permission bits only: set-user-ID and the like make no sense on a sound, and
        // would be wrong on a file that could not be given back to its owner.
        guard fchmod(descriptor, replaced.st_mode & 0o777) == 0 else { throw Self.failure("cannot set the mode", errno) }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(EncodingError) {
        if let code = writeAll(bytes, at: written) { throw Self.failure("cannot write", code) }
        written += bytes.count
    }

    func overwrite(at offset: Int, _ bytes: [UInt8]) throws(EncodingError) {
        if let code = bytes.withUnsafeBytes({ writeAll($0, at: offset) }) { throw Self.failure("cannot write", code) }
    }

    /// Writes every byte, or returns the errno that stopped it.
    private func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : ENOSPC }
            done += n
        }
        return nil
    }

    func commit() throws(EncodingError) {
        // The data on disk before the name points at it: otherwise a crash soon after the
        // rename can leave an empty file under the final name (ext4, xfs, btrfs delay writes).
        if let code = Self.sync(descriptor) {
            discard()
            throw Self.failure("cannot write", code)
        }
        let closed = close(descriptor)
        let closeError = errno
        descriptor = -1
        // EINTR: Linux has closed the descriptor anyway, and fsync above has flushed the data.
        guard closed == 0 || closeError == EINTR else {
            unlink(temporaryPath)
            throw Self.failure("cannot write", closeError)
        }
        guard rename(temporaryPath, destination) == 0 else {
            let code = errno
            unlink(temporaryPath)
            throw Self.failure("cannot replace", code)
        }
        // And the rename itself on disk: it is an entry in the folder.
        if let code = syncFolder() { throw Self.failure("written, but its folder could not be synced", code) }
    }

    /// fsync, retried when interrupted; the errno that stopped it, or nil.
    private static func sync(_ fd: Int32) -> Int32? {
        while fsync(fd) != 0 {
            if errno != EINTR { return errno }
        }
        return nil
    }

    private func syncFolder() -> Int32? {
        var fd: Int32
        repeat { fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        // A folder one may write in but not read (mode 0333) cannot be opened to sync it; the
        // file is in place all the same, and the file system commits the rename in its time.
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let code = Self.sync(fd)
        // EINVAL: a file system that has nothing to sync for a folder.
        return code == EINVAL ? nil : code
    }

    func discard() {
        guard descriptor >= 0 else { return }  // committed, or already discarded
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }
}
