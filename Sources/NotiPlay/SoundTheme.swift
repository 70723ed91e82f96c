import NotiPlayOutput

/// Sound lookup by the freedesktop Sound Theme and Sound Naming specifications.
///
/// For a name such as `message-new-instant`, each candidate name (the name, then with its last
/// `-part` dropped: `message-new`, `message`) is sought in the theme, then the themes it
/// `Inherits` (from `index.theme`), then `freedesktop`; in each theme, in each base folder
/// (`$XDG_DATA_HOME/sounds`, then `DIR/sounds` for each of `$XDG_DATA_DIRS`), in the theme's
/// folders for the `stereo` output profile, first in the locale's subfolder (`de_DE`, `de`) and
/// then without, as `NAME.disabled` (the sound is switched off), `NAME.oga`, `NAME.ogg`,
/// `NAME.wav`. Last come sound files directly in the base folders.
public struct SoundTheme: Sendable {
    public enum Match: Sendable, Equatable {
        case file(String)
        /// The theme switches this sound off (`NAME.disabled`): play nothing.
        case disabled
    }

    public var name: String
    public var outputProfile = "stereo"
    public var baseFolders: [String]
    public var locales: [String]

    public init(name: String = "freedesktop") {
        self.name = name
        let dataHome = FileSystem.dataHome
        let dataDirs = FileSystem.dataDirectories
        baseFolders = ([dataHome] + dataDirs).map { $0.appendingPath("sounds") }
        locales = SoundTheme.localeVariants()
    }

    /// `de_DE.UTF-8@euro` gives `de_DE`, `de`; C and POSIX give none.
    static func localeVariants() -> [String] {
        let value = FileSystem.environment("LC_ALL") ?? FileSystem.environment("LC_MESSAGES") ?? FileSystem.environment("LANG") ?? "C"
        let base = value.split(separator: ".").first.map(String.init) ?? value
        let language = base.split(separator: "@").first.map(String.init) ?? base
        guard language != "C", language != "POSIX", !language.isEmpty else { return [] }
        let short = language.split(separator: "_").first.map(String.init) ?? language
        return short == language ? [language] : [language, short]
    }

    public func lookup(_ soundName: String) -> Match? {
        guard (try? SoundName.validate(soundName)) != nil else { return nil }
        let chain = inheritanceChain()
        var candidate = soundName
        while true {
            for theme in chain {
                if let match = lookup(candidate, inTheme: theme) { return match }
            }
            guard let dash = candidate.lastIndex(of: "-") else { break }
            candidate = String(candidate[..<dash])
        }
        // Unthemed sounds directly in the base folders, full name only.
        for base in baseFolders {
            for suffix in ["oga", "ogg", "wav"] where FileSystem.isRegularFile(base.appendingPath("\(soundName).\(suffix)")) {
                return .file(base.appendingPath("\(soundName).\(suffix)"))
            }
        }
        return nil
    }

    private func lookup(_ soundName: String, inTheme theme: String) -> Match? {
        for base in baseFolders {
            let themeFolder = base.appendingPath(theme)
            guard let index = ThemeIndex(themeFolder) else { continue }
            for directory in index.directories(for: outputProfile) {
                for locale in locales + [""] {
                    let folder = locale.isEmpty ? themeFolder.appendingPath(directory) : themeFolder.appendingPath("\(directory)/\(locale)")
                    if FileSystem.exists(folder.appendingPath("\(soundName).disabled")) { return .disabled }
                    for suffix in ["oga", "ogg", "wav"] where FileSystem.isRegularFile(folder.appendingPath("\(soundName).\(suffix)")) {
                        return .file(folder.appendingPath("\(soundName).\(suffix)"))
                    }
                }
            }
        }
        return nil
    }

    /// The theme, the themes it inherits (depth first, each once), and `freedesktop` last.
    func inheritanceChain() -> [String] {
        var chain: [String] = []
        func visit(_ theme: String) {
            guard !chain.contains(theme), chain.count < 32, (try? SoundName.validate(theme)) != nil else { return }
            chain.append(theme)
            for base in baseFolders {
                if let index = ThemeIndex(base.appendingPath(theme)) {
                    index.inherits.forEach(visit)
                    break
                }
            }
        }
        visit(name)
        if !chain.contains("freedesktop") { chain.append("freedesktop") }
        return chain
    }
}

/// A theme's `index.theme`: `[Sound Theme]` with `Inherits` and `Directories`, and a section per
/// directory with its `OutputProfile`.
struct ThemeIndex {
    var inherits: [String] = []
    var directories: [String] = []
    var profiles: [String: String] = [:]

    init?(_ themeFolder: String) {
        guard case .success(let text)? = FileSystem.readText(themeFolder.appendingPath("index.theme")) else { return nil }
        var section = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: " \t")
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: " \t")
            let value = line[line.index(after: equals)...].trimmingCharacters(in: " \t")
            let list = value.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }
            if section == "Sound Theme" {
                if key == "Inherits" { inherits = list }
                if key == "Directories" { directories = list }
            } else if key == "OutputProfile" {
                profiles[section] = value
            }
        }
    }

    /// The directories for `profile`, then those for any other profile as a last resort (the
    /// spec's fallback to whatever the theme has).
    func directories(for profile: String) -> [String] {
        let matching = directories.filter { (profiles[$0] ?? profile) == profile }
        return matching + directories.filter { !matching.contains($0) }
    }
}

