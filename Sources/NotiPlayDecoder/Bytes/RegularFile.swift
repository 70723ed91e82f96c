#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one way noti-play opens a file it reads: a sound, a configuration file, a theme index.
///
/// The file is opened once, without blocking (a FIFO or a device must not hang the open), and
/// every later decision — its kind, its size, its length in seconds, its samples — is made on
/// this descriptor, never on the path again: swapping the path for something else after the
/// check changes nothing.
public final class RegularFile: @unchecked Sendable {  // immutable after init; the fd is only read with pread
    /// Whether a symbolic link at the path's last component is followed.
    public enum Links: Sendable {
        case follow
        /// Refused (O_NOFOLLOW): a name from a notification may not lead out of its folder.
        case refuse
    }

    /// Largest sound file read: far above any sound under 30 s, far below a disk-filling file.
    public static let soundSizeLimit = 1 << 30
    /// Largest configuration or theme index read.
    public static let textSizeLimit = 64 * 1024

    public let descriptor: Int32
    public let byteCount: Int
    /// The path as given (or as `shownAs` names it), for messages and reports (escaped: it may
    /// hold anything).
    public let path: String
    /// Identifies the file's current contents (device, inode, size, modification time).
    public let identity: FileIdentity

    /// Opens `path` (bytes, as the file system takes them) for reading.
    /// - Parameters:
    ///   - path: the path's bytes, without a terminating NUL; relative to `directory` unless absolute.
    ///   - directory: a folder's descriptor (`openat`), or `AT_FDCWD`.
    ///   - links: whether a symbolic link at the last component is followed.
    ///   - sizeLimit: files larger than this are refused before anything is read.
    ///   - shownAs: the full path, when `path` is relative to `directory`: what ``path`` says.
    public init(
        path: [UInt8], in directory: Int32 = AT_FDCWD, links: Links = .follow, sizeLimit: Int = RegularFile.soundSizeLimit,
        shownAs: [UInt8]? = nil
    ) throws(DecodingError) {
        self.path = PrintableText.path(shownAs ?? path)
        guard !path.isEmpty, !path.contains(0) else { throw DecodingError(.io, "cannot open: not a valid path") }
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (links == .refuse ? O_NOFOLLOW : 0)
        var fd: Int32
        repeat {
            fd = (path + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { openat(directory, $0.baseAddress!, flags) }
            }
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP && links == .refuse { throw DecodingError(.io, "cannot open: it is a symbolic link, refused here") }
            throw DecodingError(.io, RegularFile.describe(code, "cannot open"))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw DecodingError(.io, RegularFile.describe(code, "cannot stat"))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw DecodingError(.io, "is \(RegularFile.kind(info.st_mode)), not a regular file")
        }
        guard Int(info.st_size) <= sizeLimit else {
            close(fd)
            throw DecodingError(.io, "is \(info.st_size) bytes, over the \(sizeLimit)-byte limit for this file")
        }
        descriptor = fd
        byteCount = Int(info.st_size)
        identity = FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// Opens `path` (a Swift string: its UTF-8 bytes).
    public convenience init(path: String, links: Links = .follow, sizeLimit: Int = RegularFile.soundSizeLimit) throws(DecodingError) {
        try self.init(path: Array(path.utf8), links: links, sizeLimit: sizeLimit)
    }

    deinit { close(descriptor) }

    /// Reads up to `count` bytes at `offset` into `buffer`; fewer only at the end of the file.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(DecodingError) -> Int {
        var filled = 0
        while filled < count {
            let n = pread(descriptor, buffer + filled, count - filled, off_t(offset + filled))
            if n < 0 {
                if errno == EINTR { continue }
                throw DecodingError(.io, RegularFile.describe(errno, "read failed"))
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// The whole file as text (invalid UTF-8 repaired), for configuration and theme files.
    public func readText() throws(DecodingError) -> String {
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, byteCount), alignment: 1)
        defer { raw.deallocate() }
        let n = try read(into: raw.baseAddress!, count: byteCount, at: 0)
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<n]), as: UTF8.self)
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    static func describe(_ code: Int32, _ what: String) -> String {
        guard let text = strerror(code) else { return "\(what) (errno \(code))" }
        return "\(what): \(String(cString: text))"
    }
}

/// Identity of a file's current contents, for caching decoded sounds.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64
}
