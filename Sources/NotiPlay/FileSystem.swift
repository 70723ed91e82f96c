import CSystemSupport
import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file-system questions lookup asks, without Foundation.
enum FileSystem {
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// An XDG base-directory variable: the spec says a relative path is invalid and is ignored.
    static func xdgFolder(_ name: String) -> String? {
        environment(name).flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    /// `$XDG_DATA_HOME`, by default `~/.local/share`.
    static var dataHome: String {
        xdgFolder("XDG_DATA_HOME") ?? ((environment("HOME") ?? "/") + "/.local/share")
    }

    /// `$XDG_CONFIG_HOME`, by default `~/.config`.
    static var configHome: String {
        xdgFolder("XDG_CONFIG_HOME") ?? ((environment("HOME") ?? "/") + "/.config")
    }

    /// `$XDG_DATA_DIRS` (absolute entries only), by default `/usr/local/share:/usr/share`.
    static var dataDirectories: [String] {
        (environment("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// The canonical absolute path (symlinks resolved), or nil if it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where the file open on `file`'s descriptor lies, symlinks and `..` resolved: the kernel's
    /// name for it (/proc/self/fd/N), kept only while that name still leads to this very file
    /// (same device and inode), else nil: moved, deleted, or named in another mount namespace.
    static func location(of file: RegularFile) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(file.descriptor)", &buffer, buffer.count)
        guard n > 0, n < buffer.count, buffer[0] == CChar(UInt8(ascii: "/")) else { return nil }  // a full buffer may be cut short
        var info = stat()
        guard lstat(buffer, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_dev) == file.identity.device,
              UInt64(info.st_ino) == file.identity.inode else { return nil }
        return buffer[0..<n].map { UInt8(bitPattern: $0) }
    }

    /// Whether the real location `path` lies under `folder` (the folder's own symlinks resolved:
    /// /usr/share may be a link).
    static func contains(_ folder: String, _ path: [UInt8]) -> Bool {
        guard let real = realPath(folder) else { return false }
        let prefix = Array(real.utf8) + (real.hasSuffix("/") ? [] : [UInt8(ascii: "/")])
        return path.count > prefix.count && path.starts(with: prefix)
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// A configuration or theme file's text, read through ``RegularFile`` (a FIFO or a device
    /// in its place is refused, not waited on; a file over the size limit is refused whole).
    /// nil when there is no such file; the one-line reason when it cannot be used.
    static func readText(_ path: String) -> Result<String, DecodingError>? {
        guard exists(path) else { return nil }
        do {
            return .success(try RegularFile(path: path, sizeLimit: RegularFile.textSizeLimit).readText())
        } catch {
            return .failure(error)
        }
    }

    /// The folder that holds the running executable.
    /// The folder of the ELF object this function is in: the shared library when noti-play is
    /// inside one, the program otherwise (dladdr names the object that holds an address).
    static func folderOfThisBinary() -> String? {
        guard let name = noti_object_path(unsafeBitCast(anchor, to: UnsafeRawPointer.self)) else { return nil }
        let path = String(cString: name)
        guard path.hasPrefix("/") else { return nil }  // the main program, as it was started: see executableFolder
        return path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    /// An address inside this module, for dladdr.
    private static let anchor: @convention(c) () -> Void = {}

    static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }
}

extension String {
    /// `self` and `component` joined by one slash.
    func appendingPath(_ component: String) -> String {
        hasSuffix("/") ? self + component : self + "/" + component
    }
}
