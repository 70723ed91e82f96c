#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random-access bytes a sound is decoded from: a file or memory a daemon was handed.
///
/// The decoder asks for bounded ranges only (a header chunk, or one read-ahead chunk of packets),
/// so memory use never follows the file's length.
public protocol ByteSource: AnyObject {
    /// The length of the whole source in bytes.
    var byteCount: Int { get }

    /// Calls `body` with up to `count` bytes starting at `offset`: fewer only where the source ends.
    /// The bytes are valid only inside `body`.
    func withBytes<R>(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(DecodingError) -> R
}

extension ByteSource {
    /// Copies up to `count` bytes at `offset` (fewer at the end). Callers bound `count` first.
    func bytes(at offset: Int, count: Int) throws(DecodingError) -> [UInt8] {
        try withBytes(at: offset, count: count) { Array($0) }
    }
}

/// Bytes already in memory. Reads hand out pointers into the array itself: nothing is copied.
public final class MemoryByteSource: ByteSource {
    public let storage: [UInt8]

    public init(_ bytes: [UInt8]) { storage = bytes }

    public var byteCount: Int { storage.count }

    public func withBytes<R>(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(DecodingError) -> R {
        let start = min(max(offset, 0), storage.count)
        let end = start + min(max(count, 0), storage.count - start)
        return storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }
}

/// A regular file read with `pread` into one reusable buffer.
public final class FileByteSource: ByteSource {
    private let descriptor: Int32
    public let byteCount: Int
    private var buffer: UnsafeMutableRawBufferPointer

    /// Opens `path` for reading. Only regular files are accepted: a directory, FIFO or device
    /// would block or never end, and a notification sound is always a plain file.
    public init(path: String) throws(DecodingError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw DecodingError(.io, FileByteSource.describeErrno(errno, "cannot open")) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw DecodingError(.io, FileByteSource.describeErrno(code, "cannot stat"))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            let kind: String
            switch info.st_mode & S_IFMT {
            case S_IFDIR: kind = "a directory"
            case S_IFIFO: kind = "a FIFO"
            case S_IFCHR, S_IFBLK: kind = "a device"
            case S_IFSOCK: kind = "a socket"
            default: kind = "not a regular file"
            }
            throw DecodingError(.io, "is \(kind), not a sound file")
        }
        descriptor = fd
        byteCount = Int(info.st_size)
        buffer = .allocate(byteCount: 0, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        close(descriptor)
    }

    public func withBytes<R>(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(DecodingError) -> R {
        let start = min(max(offset, 0), byteCount)
        let wanted = min(max(count, 0), byteCount - start)
        if wanted > buffer.count {
            buffer.deallocate()
            buffer = .allocate(byteCount: wanted, alignment: 16)
        }
        var filled = 0
        while filled < wanted {
            let n = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(start + filled))
            if n < 0 {
                if errno == EINTR { continue }
                throw DecodingError(.io, FileByteSource.describeErrno(errno, "read failed"))
            }
            if n == 0 { break }  // the file shrank since it was opened
            filled += n
        }
        return body(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
    }

    static func describeErrno(_ code: Int32, _ what: String) -> String {
        guard let text = strerror(code) else { return "\(what) (errno \(code))" }
        return "\(what): \(String(cString: text))"
    }
}
