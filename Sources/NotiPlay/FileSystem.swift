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

    /// `$XDG_DATA_HOME`, by default `~/.local/share`.
    static var dataHome: String {
        environment("XDG_DATA_HOME") ?? ((environment("HOME") ?? "/") + "/.local/share")
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

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Identity of a file's current contents, for caching decoded sounds.
    struct Identity: Hashable, Sendable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64
    }

    static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    static func readText(_ path: String, limit: Int = 1 << 20) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes.prefix(limit), as: UTF8.self)
    }

    /// The folder that holds the running executable.
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
