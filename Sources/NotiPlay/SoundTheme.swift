import NotiPlayDecoder
import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Sound lookup by the freedesktop Sound Theme and Sound Naming specifications.
///
/// For a name such as `message-new-instant`, each candidate name (the name, then with its last
/// `-part` dropped: `message-new`, `message`) is sought in the theme, then the themes it
/// `Inherits` (from `index.theme`), then `freedesktop`; in each theme, in each base folder
/// (`$XDG_DATA_HOME/sounds`, then `DIR/sounds` for each of `$XDG_DATA_DIRS`), in the theme's
/// folders for the `stereo` output profile, first in the locale's subfolder (`de_DE`, `de`) and
/// then without, as `NAME.disabled` (the sound is switched off), `NAME.oga`, `NAME.ogg`,
/// `NAME.wav`. Last come sound files directly in the base folders.
///
/// A lookup's work is bounded (``Limits``): names and theme folders are hostile, and a
/// notification's lookup runs on the player's control thread, ahead of the sounds asked for
/// after it, critical ones included.
public struct SoundTheme: Sendable {
    public enum Match: Sendable, Equatable {
        case file(String)
        /// The theme switches this sound off (`NAME.disabled`): play nothing.
        case disabled
    }

    /// The most work one lookup does. Real themes need a small part of it: the freedesktop
    /// theme under a user theme that inherits it, a de_DE locale, three base folders: 18
    /// operations to find `message-new-instant`, 85 for a 128-part name that is nowhere. A theme
    /// made to be slow (32 inherited themes of 1,000 folders each, that name) took about 16
    /// million before there were bounds (70 s).
    public enum Limits {
        /// Parts of a dash-separated name that are tried: a longer name is sought from its first
        /// 8 parts down to its first (no name of the Sound Naming spec has more than 4 parts).
        public static let nameParts = 8
        /// Themes of the inheritance chain, the theme itself included (`freedesktop`, last, is
        /// added beyond them).
        public static let themes = 32
        /// Directories of one theme's index that are searched: the first it lists.
        public static let directoriesPerTheme = 16
        /// File-system operations (an open, a stat) in one lookup: past them it stops, and
        /// answers "not found" with the reason.
        public static let fileSystemOperations = 1024
    }

    /// What a lookup found, and what it cost.
    public struct Answer: Sendable, Equatable {
        public var match: Match?
        /// Why the lookup stopped before it had looked everywhere, or nil.
        public var stopped: String?
        /// File-system operations made (at most ``Limits/fileSystemOperations``).
        package var operations: Int
    }

    public var name: String
    public var outputProfile = "stereo"
    public var baseFolders: [String]
    public var locales: [String]
    /// Where parsed index.theme files are kept (the process's, unless a test gives its own).
    package var indexes = ThemeIndexCache.shared

    public init(name: String = "freedesktop") {
        self.name = name
        baseFolders = Self.standardBaseFolders
        locales = SoundTheme.localeVariants()
    }

    /// `$XDG_DATA_HOME/sounds`, then `DIR/sounds` for each of `$XDG_DATA_DIRS`.
    static var standardBaseFolders: [String] {
        ([FileSystem.dataHome] + FileSystem.dataDirectories).map { $0.appendingPath("sounds") }
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

    public func lookup(_ soundName: String) -> Answer {
        var budget = Budget()
        guard SoundName.problem(with: soundName, as: .soundName) == nil else { return Answer(match: nil, operations: 0) }
        do throws(Budget.Spent) {
            let folders = try themeFolders(&budget)
            for candidate in Self.candidates(soundName) {
                for folder in folders {
                    if try budget.exists(folder.appendingPath("\(candidate).disabled")) { return budget.answer(.disabled) }
                    for suffix in ["oga", "ogg", "wav"] where try budget.isRegularFile(folder.appendingPath("\(candidate).\(suffix)")) {
                        return budget.answer(.file(folder.appendingPath("\(candidate).\(suffix)")))
                    }
                }
            }
            // Unthemed sounds directly in the base folders, full name only.
            for base in baseFolders {
                for suffix in ["oga", "ogg", "wav"] where try budget.isRegularFile(base.appendingPath("\(soundName).\(suffix)")) {
                    return budget.answer(.file(base.appendingPath("\(soundName).\(suffix)")))
                }
            }
            return budget.answer(nil)
        } catch {
            let stopped = "looking it up in sound theme '\(SoundName.printable(name))' stopped after \(Limits.fileSystemOperations) file-system operations, the most one lookup makes (the theme and those it inherits have too many folders)"
            return Answer(match: nil, stopped: stopped, operations: budget.spent)
        }
    }

    /// The names tried for `soundName`, longest first: its first ``Limits/nameParts`` parts,
    /// then each with its last `-part` dropped.
    static func candidates(_ soundName: String) -> [String] {
        // The first parts end at the nameParts-th dash (an empty part, as in "a--b", is a part).
        var end = soundName.endIndex, dashes = 0
        for index in soundName.utf8.indices where soundName.utf8[index] == UInt8(ascii: "-") {
            dashes += 1
            if dashes == Limits.nameParts {
                end = index
                break
            }
        }
        var candidate = soundName[..<end]
        var names: [String] = []
        while true {
            names.append(String(candidate))
            guard let dash = candidate.lastIndex(of: "-") else { return names }
            candidate = candidate[..<dash]
        }
    }

    /// The folders a name is sought in, in order, each once: for each theme of the chain, in
    /// each base folder that holds it, its directories for the output profile, each locale's
    /// subfolder before the directory itself, those that exist.
    private func themeFolders(_ budget: inout Budget) throws(Budget.Spent) -> [String] {
        var folders: [String] = []
        for theme in try inheritanceChain(&budget) {
            for (themeFolder, index) in theme.indexes {
                for directory in index.directories(for: outputProfile) {
                    for locale in locales + [""] {
                        let folder = themeFolder.appendingPath(locale.isEmpty ? directory : "\(directory)/\(locale)")
                        if try budget.isDirectory(folder) { folders.append(folder) }
                    }
                }
            }
        }
        return folders
    }

    /// A theme of the chain and its index in each base folder that has one.
    private struct ChainedTheme {
        var name: String
        var indexes: [(folder: String, index: ThemeIndex)]
    }

    /// The theme, the themes it inherits (depth first, each once; `Inherits` of the first base
    /// folder that holds the theme), and `freedesktop` last.
    private func inheritanceChain(_ budget: inout Budget) throws(Budget.Spent) -> [ChainedTheme] {
        var chain: [ChainedTheme] = []
        func located(_ theme: String) throws(Budget.Spent) -> ChainedTheme {
            var found = ChainedTheme(name: theme, indexes: [])
            for base in baseFolders {
                let folder = base.appendingPath(theme)
                if let index = try budget.index(in: folder, from: indexes) { found.indexes.append((folder, index)) }
            }
            return found
        }
        func visit(_ theme: String) throws(Budget.Spent) {
            guard chain.count < Limits.themes, !chain.contains(where: { $0.name == theme }),
                  SoundName.problem(with: theme, as: .themeName) == nil else { return }
            let found = try located(theme)
            chain.append(found)
            for inherited in found.indexes.first?.index.inherits ?? [] { try visit(inherited) }
        }
        try visit(name)
        // Past the chain's limit too: the spec's fallback theme is always searched.
        if !chain.contains(where: { $0.name == "freedesktop" }) { chain.append(try located("freedesktop")) }
        return chain
    }

    /// The file-system operations of one lookup, counted as they are made; past
    /// ``Limits/fileSystemOperations`` every further one throws.
    private struct Budget {
        struct Spent: Error {}
        private(set) var spent = 0

        private mutating func spend() throws(Spent) {
            guard spent < Limits.fileSystemOperations else { throw Spent() }
            spent += 1
        }

        mutating func exists(_ path: String) throws(Spent) -> Bool {
            try spend()
            return FileSystem.exists(path)
        }

        mutating func isRegularFile(_ path: String) throws(Spent) -> Bool {
            try spend()
            return FileSystem.isRegularFile(path)
        }

        mutating func isDirectory(_ path: String) throws(Spent) -> Bool {
            try spend()
            return FileSystem.isDirectory(path)
        }

        /// One open of the index file (read and parsed only when it changed).
        mutating func index(in themeFolder: String, from cache: ThemeIndexCache) throws(Spent) -> ThemeIndex? {
            try spend()
            return cache.index(in: themeFolder)
        }

        func answer(_ match: Match?) -> Answer { Answer(match: match, operations: spent) }
    }
}

/// Each index.theme read, kept while its file stays the same (device, inode, size and
/// modification time, from the descriptor it is read through): a long-lived player parses a
/// theme's index once per edit, not once per lookup.
package final class ThemeIndexCache: Sendable {
    package static let shared = ThemeIndexCache()
    /// Theme folders kept (a chain of 33 themes in 3 base folders needs 99 at most; a lookup
    /// whose chain is longer than that parses some again). Past it, the cache starts afresh.
    static let capacity = 128

    private struct Entry {
        let identity: FileIdentity
        let index: ThemeIndex
    }
    private struct State {
        var entries: [String: Entry] = [:]
        var parses = 0
    }
    private let state = Mutex(State())

    package init() {}

    /// How many index files were read and parsed.
    package var parses: Int { state.withLock { $0.parses } }

    /// The index of the theme in `themeFolder`, or nil when it has none that can be read (a FIFO,
    /// a folder or a file over the size limit in its place is skipped, not waited on).
    func index(in themeFolder: String) -> ThemeIndex? {
        let path = themeFolder.appendingPath("index.theme")
        guard let file = try? RegularFile(path: path, sizeLimit: RegularFile.textSizeLimit) else { return nil }
        if let kept = state.withLock({ $0.entries[themeFolder] }), kept.identity == file.identity { return kept.index }
        guard let text = try? file.readText() else { return nil }
        let index = ThemeIndex(text)
        state.withLock { state in
            state.parses += 1
            if state.entries.count >= Self.capacity { state.entries.removeAll() }
            state.entries[themeFolder] = Entry(identity: file.identity, index: index)
        }
        return index
    }
}

/// A theme's `index.theme`: `[Sound Theme]` with `Inherits` and `Directories`, and a section per
/// directory with its `OutputProfile`. Only the first ``SoundTheme/Limits/directoriesPerTheme``
/// directories are kept, and only relative paths that stay inside the theme (no `..`).
struct ThemeIndex: Sendable {
    var inherits: [String] = []
    var directories: [String] = []
    var profiles: [String: String] = [:]

    init(_ text: String) {
        var text = text
        self = text.withUTF8 { ThemeIndex(parsing: $0) }
    }

    /// Bytes and index arithmetic, not Characters: an index may be 64 KiB of anything, and it is
    /// parsed again after every edit.
    private init(parsing bytes: UnsafeBufferPointer<UInt8>) {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var (lower, upper) = (range.lowerBound, range.upperBound)
            while lower < upper && isBlank(bytes[lower]) { lower += 1 }
            while upper > lower && isBlank(bytes[upper - 1]) { upper -= 1 }
            return lower..<upper
        }
        func next(_ byte: UInt8, in range: Range<Int>) -> Int {
            var index = range.lowerBound
            while index < range.upperBound && bytes[index] != byte { index += 1 }
            return index
        }
        func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
            range.count == word.utf8CodeUnitCount && memcmp(bytes.baseAddress! + range.lowerBound, word.utf8Start, range.count) == 0
        }
        func equals(_ range: Range<Int>, _ word: String) -> Bool {
            range.count == word.utf8.count && bytes[range].elementsEqual(word.utf8)
        }
        /// The first `limit` non-empty items of a comma-separated value.
        func list(_ range: Range<Int>, limit: Int) -> [String] {
            var items: [String] = []
            var start = range.lowerBound
            while start < range.upperBound && items.count < limit {
                let end = next(UInt8(ascii: ","), in: start..<range.upperBound)
                let item = trimmed(start..<end)
                if !item.isEmpty { items.append(text(item)) }
                start = end + 1
            }
            return items
        }

        var inSoundTheme = false
        var section = 0..<0
        // Where each section's OutputProfile is; made text only for the directories kept.
        var profileLines: [(section: Range<Int>, value: Range<Int>)] = []
        // A UTF-8 byte-order mark is skipped.
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count {
            let end = next(UInt8(ascii: "\n"), in: start..<bytes.count)
            let line = trimmed(start..<end)
            start = end + 1
            guard let first = line.first.map({ bytes[$0] }), first != UInt8(ascii: "#") else { continue }
            if first == UInt8(ascii: "[") && bytes[line.upperBound - 1] == UInt8(ascii: "]") && line.count >= 2 {
                section = line.lowerBound + 1..<line.upperBound - 1
                inSoundTheme = equals(section, "Sound Theme")
                continue
            }
            let equalsSign = next(UInt8(ascii: "="), in: line)
            guard equalsSign < line.upperBound else { continue }
            let key = trimmed(line.lowerBound..<equalsSign), value = trimmed(equalsSign + 1..<line.upperBound)
            if inSoundTheme {
                if equals(key, "Inherits") { inherits = list(value, limit: SoundTheme.Limits.themes) }
                if equals(key, "Directories") {
                    directories = list(value, limit: SoundTheme.Limits.directoriesPerTheme).filter(Self.staysInside)
                }
            } else if equals(key, "OutputProfile") {
                profileLines.append((section, value))
            }
        }
        for directory in directories {
            // The last one, as a key given twice means its last value.
            if let line = profileLines.last(where: { equals($0.section, directory) }) { profiles[directory] = text(line.value) }
        }
    }

    /// The directories for `profile`, then those for any other profile as a last resort (the
    /// spec's fallback to whatever the theme has).
    func directories(for profile: String) -> [String] {
        let matching = directories.filter { (profiles[$0] ?? profile) == profile }
        return matching + directories.filter { !matching.contains($0) }
    }

    /// Whether a listed directory is a relative path inside the theme: each `/`-part one folder.
    private static func staysInside(_ directory: String) -> Bool {
        directory.split(separator: "/", omittingEmptySubsequences: false)
            .allSatisfy { SoundName.problem(with: String($0), as: .themeName) == nil }
    }
}
