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
final class FileSink: ByteSink {
    private let destination: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var written = 0

    init(path: String) throws(EncodingError) {
        var target = path
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) {
            // Write through a symbolic link to its file rather than replace the link.
            target = String(cString: resolved)
            free(resolved)
        }
        if stat(target, &info) == 0 && info.st_mode & S_IFMT != S_IFREG {
            throw .init(.io, info.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is not a regular file")
        }
        destination = target
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var attempt = 0
        while true {
            let candidate = "\(directory).\(name).noti-play-\(getpid())-\(attempt)"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 {
                temporaryPath = candidate
                descriptor = fd
                return
            }
            guard errno == EEXIST, attempt < 100 else { throw Self.failure("cannot create", errno) }
            attempt += 1
        }
    }

    deinit { discard() }

    static func failure(_ what: String, _ code: Int32) -> EncodingError {
        .init(.io, "\(what): \(String(cString: strerror(code)))")
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
        let closed = close(descriptor)
        let closeError = errno
        descriptor = -1
        guard closed == 0 else {
            unlink(temporaryPath)
            throw Self.failure("cannot write", closeError)
        }
        guard rename(temporaryPath, destination) == 0 else {
            let code = errno
            unlink(temporaryPath)
            throw Self.failure("cannot replace", code)
        }
    }

    func discard() {
        guard descriptor >= 0 else { return }  // committed, or already discarded
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }
}
