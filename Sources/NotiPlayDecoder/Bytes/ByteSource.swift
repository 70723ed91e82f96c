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
    public let file: RegularFile
    public var byteCount: Int { file.byteCount }
    private var buffer: UnsafeMutableRawBufferPointer

    /// Reads `file`, opened once by ``RegularFile``.
    public init(file: RegularFile) {
        self.file = file
        buffer = .allocate(byteCount: 0, alignment: 16)
    }

    /// Opens `path` for reading. Only regular files are accepted: a directory, FIFO or device
    /// would block or never end, and a notification sound is always a plain file.
    public convenience init(path: String) throws(DecodingError) {
        self.init(file: try RegularFile(path: path))
    }

    deinit { buffer.deallocate() }

    public func withBytes<R>(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(DecodingError) -> R {
        let start = min(max(offset, 0), byteCount)
        let wanted = min(max(count, 0), byteCount - start)
        if wanted > buffer.count {
            buffer.deallocate()
            buffer = .allocate(byteCount: wanted, alignment: 16)
        }
        let filled = try file.read(into: buffer.baseAddress!, count: wanted, at: start)
        // The length was fixed when the file was opened: fewer bytes now means it was cut while
        // being read (a sound truncated while it plays), which must not pass for its end.
        guard filled == wanted else {
            // What the file holds now: cut below `start`, it holds less than this read reached.
            var now = stat()
            let left = fstat(file.descriptor, &now) == 0 ? Int(now.st_size) : start + filled
            throw DecodingError(.io, "the file was cut while it was read (\(left) of \(byteCount) bytes are left)")
        }
        return body(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
    }
}
