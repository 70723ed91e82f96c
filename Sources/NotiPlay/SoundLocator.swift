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
/// Symlinks: a folder may itself be a symlink (its target is then the folder). A name resolves
/// only to a regular file whose real path lies inside its folder's real path, so a symlink
/// inside a folder that points elsewhere is refused like `../`.
public struct SoundLocator: Sendable {
    public var folders: [String]

    public init(appFolders: [String] = [], appID: String? = nil) {
        var folders = appFolders
        let dataHome = FileSystem.dataHome
        let dataDirs = FileSystem.dataDirectories
        if let appID, (try? SoundName.validate(appID)) != nil {
            folders += ([dataHome] + dataDirs).map { $0.appendingPath("noti-play/apps/\(appID)/sounds") }
        }
        folders.append(dataHome.appendingPath("noti-play/sounds"))
        folders += dataDirs.map { $0.appendingPath("noti-play/sounds") }
        if let bundled = SoundLocator.bundledFolder { folders.append(bundled) }
        self.folders = folders
    }

    /// noti-play's own sounds: installed beside the command, or in the source checkout it was
    /// built from.
    public static let bundledFolder: String? = {
        guard let bin = FileSystem.executableFolder() else { return nil }
        let installed = bin + "/../share/noti-play/sounds"
        if FileSystem.isRegularFile(installed + "/default.caf") { return FileSystem.realPath(installed) }
        // .build/<triple>/<configuration>/noti-play, or .build/<configuration>/noti-play
        var folder = bin
        for _ in 0..<5 {
            folder += "/.."
            if FileSystem.isRegularFile(folder + "/Sounds/default.caf") { return FileSystem.realPath(folder + "/Sounds") }
        }
        return nil
    }()

    /// The file for `name` in the first folder that holds it. Throws for a name that is not a
    /// plain file name, and when no folder holds it.
    public func locate(_ name: String) throws(NotificationSoundError) -> String {
        try SoundName.validate(name)
        for folder in folders {
            guard let root = FileSystem.realPath(folder), FileSystem.isDirectory(root) else { continue }
            guard let file = FileSystem.realPath(root.appendingPath(name)) else { continue }
            // The resolved file must still be inside the folder: a symlink out of it is refused.
            guard file.hasPrefix(root.hasSuffix("/") ? root : root + "/"), FileSystem.isRegularFile(file) else { continue }
            return file
        }
        throw .notFound(SoundName.printable(name), searched: folders)
    }
}
