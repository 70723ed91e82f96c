import Foundation

/// libnoti-play as a C host gets it: what `swift build` made, installed by scripts/install.sh
/// (`--from` the build folder) into a fresh prefix with its header and pkg-config file; and C
/// programs compiled against it with `gcc $(pkg-config --cflags --libs noti-play)`.
public struct InstalledLibrary: Sendable {
    public let prefix: String

    public init(in folder: TemporaryDirectory) throws {
        prefix = folder.file("prefix")
        let buildDirectory = URL(fileURLWithPath: TestTools.notiPlay).deletingLastPathComponent().path
        try TestTools.runChecked(Repository.path + "/scripts/install.sh", ["--prefix", prefix, "--from", buildDirectory])
    }

    /// Compiles `source` into `program` against the library (and `extraPackages`), warnings as errors.
    public func compile(_ source: String, into program: String, extraPackages: [String] = []) throws {
        let flags = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"] + extraPackages,
                                      environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"])
        guard flags.status == 0 else {
            throw ToolFailure(command: (["pkg-config", "noti-play"] + extraPackages).joined(separator: " "), stderr: flags.stderr)
        }
        let compile = try TestTools.run("gcc", ["-Wall", "-Wextra", "-Werror", "-pthread", "-o", program, source]
            + flags.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init))
        guard compile.status == 0 else { throw ToolFailure(command: "gcc \(source)", stderr: compile.stderr) }
    }
}
