import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#endif

/// Where sound names are looked up, in order, and the rule that keeps a name inside them.
///
/// 1. The app's own sound folders, as the embedding app names them (iOS: the app container's
///    Library/Sounds, the shared group containers' Library/Sounds, the main bundle).
/// 2. With an app id: `$XDG_DATA_HOME/noti-play/apps/ID/sounds`, then the same under each of
///    `$XDG_DATA_DIRS`.
/// 3. The user's folder, `$XDG_DATA_HOME/noti-play/sounds` (default `~/.local/share/noti-play/sounds`).
/// 4. The system's, `DIR/noti-play/sounds` for each DIR of `$XDG_DATA_DIRS`
///    (default `/usr/local/share:/usr/share`).
/// 5. noti-play's bundled sounds: `PREFIX/share/noti-play/sounds` beside the installed command,
///    or `Sounds/` of a source checkout.
///
/// Symlinks: a folder may itself be a symlink (its target is then the folder). The name is
/// opened in the folder (`openat` on the folder's descriptor, O_NOFOLLOW), so a symlink inside a
/// folder is refused like `../`, and the file that was checked is the file that plays.
public struct SoundLocator: Sendable {
    public var folders: [String]
    /// Why part of the request was not used (an app id that is not a valid name).
    public private(set) var warnings: [PlaybackWarning] = []

    public init(appFolders: [String] = [], appID: String? = nil) {
        var folders = appFolders
        let dataHome = FileSystem.dataHome
        let dataDirs = FileSystem.dataDirectories
        if let appID, let problem = SoundLocator.appIDProblem(appID) {
            warnings.append(.init(.appIDUnused, "app id '\(SoundName.printable(appID))' is not used: \(problem)"))
        } else if let appID {
            folders += ([dataHome] + dataDirs).map { $0.appendingPath("noti-play/apps/\(appID)/sounds") }
        }
        folders.append(dataHome.appendingPath("noti-play/sounds"))
        folders += dataDirs.map { $0.appendingPath("noti-play/sounds") }
        if let bundled = SoundLocator.bundledFolder { folders.append(bundled) }
        self.folders = folders
    }

    /// noti-play's own sounds: `PREFIX/share/noti-play/sounds` for the binary this code is
    /// linked into — `libnoti-play.so` in PREFIX/lib (or a multiarch PREFIX/lib/TRIPLET) when a
    /// daemon loaded it, else the `noti-play` command in PREFIX/bin — or `Sounds/` of the source
    /// checkout it was built in. Never the host program's folder: dunst in /usr/bin finds the
    /// sounds of a noti-play installed in /usr/local.
    public static let bundledFolder: String? = {
        for installed in bundledCandidates where FileSystem.isRegularFile(installed + "/default.caf") {
            return FileSystem.realPath(installed)
        }
        let binaries = [FileSystem.folderOfThisBinary(), FileSystem.executableFolder()].compactMap { $0 }
        // .build/<triple>/<configuration>/noti-play, or .build/<configuration>/noti-play
        for binary in binaries {
            var folder = binary
            for _ in 0..<5 {
                folder += "/.."
                if FileSystem.isRegularFile(folder + "/Sounds/default.caf") { return FileSystem.realPath(folder + "/Sounds") }
            }
        }
        return nil
    }()

    /// The installed folders `bundledFolder` looks in, in order (what a "not found" names).
    static var bundledCandidates: [String] {
        let binaries = [FileSystem.folderOfThisBinary(), FileSystem.executableFolder()].compactMap { $0 }
        return binaries.flatMap { folder in ["/../share", "/../../share"].map { folder + $0 + "/noti-play/sounds" } }
    }

    /// Why `appID` cannot name a folder, or nil: it is used as one path component.
    public static func appIDProblem(_ appID: String) -> String? {
        SoundName.problem(with: appID, as: .appID)
    }

    /// The file for `name` in the first folder that holds it as a regular file, opened. Throws
    /// for a name that is not a plain file name; when no folder holds it, why the first folder
    /// that has something of that name refused it, else that it was not found.
    public func locate(_ name: String) throws(NotificationSoundError) -> RegularFile {
        try SoundName.validate(name)
        var refused: NotificationSoundError?
        for folder in folders {
            let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
            guard directory >= 0 else { continue }
            defer { close(directory) }
            do {
                return try RegularFile(path: Array(name.utf8), in: directory, links: .refuse,
                                       shownAs: Array(folder.appendingPath(name).utf8))
            } catch {
                // A symlink, FIFO or folder under that name is skipped, as a missing file is,
                // for the folders after it; but it is not "not found".
                if refused == nil, let why = Self.refusal(of: name, in: directory, error) {
                    refused = .unreadable(folder.appendingPath(name), why)
                }
            }
        }
        throw refused ?? .notFound(SoundName.printable(name), searched: folders)
    }

    /// Why the entry `name` of `directory` was not opened as a sound (`error`, in words), or nil
    /// when there is no such entry.
    private static func refusal(of name: String, in directory: Int32, _ error: DecodingError) -> String? {
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            return "is a symbolic link, refused: a sound name is opened in its folder without following links (O_NOFOLLOW), so that it cannot lead out of the folder"
        }
        return error.message
    }
}
