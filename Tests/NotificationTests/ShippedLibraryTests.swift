import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// libnoti-play as it is shipped to C hosts: built and installed by `scripts/install.sh` (a
/// release build, as a user runs it), checked with binutils (readelf, nm) the way a packager
/// would, and run by the example daemon where no Swift toolchain is. Needs root for the mount
/// namespace (`unshare -m`, util-linux), as CI runs; anything missing fails, nothing is skipped.
@Suite struct ShippedLibraryTests {
    let folder = TemporaryDirectory("shipped-library")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The functions noti-play.h declares, read as the compiler reads the header.
    func headerFunctions() throws -> Set<String> {
        let preprocessed = try TestTools.runChecked("gcc", ["-E", "-P", repository + "/Sources/NotiPlayC/noti-play.h"]).stdoutText
        let declaration = try Regex(#"\b(noti_play_[a-z_]+)\s*\("#)
        return Set(preprocessed.matches(of: declaration).map { String(preprocessed[$0.range].prefix { $0 != "(" && !$0.isWhitespace }) })
    }

    func compileDaemon(prefix: String) throws -> String {
        let flags = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"],
                                      environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"])
        #expect(flags.status == 0, "\(flags.stderr)")
        let daemon = folder.file("noti-play-daemon")
        try TestTools.runChecked("gcc", ["-Wall", "-Wextra", "-Werror", "-o", daemon, repository + "/docs/examples/noti-play-daemon.c"]
            + flags.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init))
        return daemon
    }

    @Test func theShippedLibraryRunsWhereNoSwiftToolchainIs() throws {
        let toolchain = try HiddenToolchain.toolchainFolder()
        let prefix = folder.file("prefix")
        try TestTools.runChecked(repository + "/scripts/install.sh", ["--prefix", prefix])
        let lib = prefix + "/lib/"
        let version = try Repository.headerVersion()

        // The library under its full version, its SONAME link and the link `-lnoti-play` finds.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: lib + "libnoti-play.so") == "libnoti-play.so.0")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: lib + "libnoti-play.so.0") == "libnoti-play.so.\(version)")
        let library = lib + "libnoti-play.so.\(version)"
        let dynamic = try TestTools.runChecked("readelf", ["-d", library]).stdoutText
        #expect(dynamic.contains("Library soname: [libnoti-play.so.0]"), "\(dynamic)")
        // Nothing sends the loader to the toolchain: no Swift library needed, no path into it.
        #expect(!dynamic.contains("libswift") && !dynamic.contains(toolchain), "\(dynamic)")
        // libsndfile and its codec libraries load when a sound needs them, not with the library.
        #expect(!dynamic.contains("libsndfile"), "\(dynamic)")
        // The C++ runtime under the Swift runtime is linked in (a private copy), so a C host does
        // not map libstdc++.so.6 at its start.
        #expect(!dynamic.contains("libstdc++"), "\(dynamic)")
        let pkgConfig = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"],
                                          environment: ["PKG_CONFIG_PATH": lib + "pkgconfig"])
        #expect(pkgConfig.status == 0 && !pkgConfig.stdoutText.contains(toolchain), "\(pkgConfig.stdoutText)")
        // From the prefix alone, where no alsa.pc is: the header needs nothing of ALSA's.
        let alone = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"], environment: ["PKG_CONFIG_LIBDIR": lib + "pkgconfig"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let modversion = try TestTools.run("pkg-config", ["--modversion", "noti-play"], environment: ["PKG_CONFIG_PATH": lib + "pkgconfig"])
        #expect(modversion.stdoutText == version + "\n")

        // Exactly the header's functions are exported: not the Swift runtime, not the ALSA shim.
        let symbols = try TestTools.runChecked("nm", ["-D", "--defined-only", library]).stdoutText
        let exported = Set(symbols.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        #expect(exported == (try headerFunctions()))

        // The example daemon, compiled against the installed library, plays with the toolchain's
        // folder hidden under an empty tmpfs (in a mount namespace of its own).
        let daemon = try compileDaemon(prefix: prefix)
        let sound = folder.file("chime.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=0.25", "-c:a", "adpcm_ima_qt", "-y", sound])
        let requests = folder.file("requests")
        try "version\nfile \(sound) 0.5 critical\nwait\nquit\n".write(toFile: requests, atomically: true, encoding: .utf8)
        let capture = folder.file("played.raw")
        let hidden = try HiddenToolchain(in: folder).run("/bin/sh", ["-c", "exec \"$0\" < \"$1\"", daemon, requests], environment: [
                "NOTI_PLAY_DEVICE": "file:FILE=\(capture),FORMAT=raw",
                "XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data"),
            ])
        #expect(hidden.status == 0, "\(hidden.stderr)")
        #expect(hidden.stdoutText == "version \(version) \(version)\nstarted 1\nended 1 finished \nidle\n", "\(hidden.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let expected = try SoundDecoder(path: sound).readAll().flatMap { [$0 * Float(0.5), $0 * Float(0.5)] }
        #expect(!expected.isEmpty && Array(written.prefix(expected.count)) == expected)

        // A C++ host keeps its own libstdc++ (its strings, streams and exceptions) beside the
        // library's private copy, and plays the same samples.
        let cxxCapture = folder.file("cxx-played.raw")
        let cxxHost = try compileCxxHost(prefix: prefix)
        let cxx = try TestTools.run(cxxHost, ["file:FILE=\(cxxCapture),FORMAT=raw", sound],
                                    environment: ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data")])
        #expect(cxx.status == 0 && cxx.stdoutText == "the host's own exception\nfinished\n", "\(cxx.stdoutText) \(cxx.stderr)")
        let cxxDynamic = try TestTools.runChecked("readelf", ["-d", cxxHost]).stdoutText
        #expect(cxxDynamic.contains("libstdc++.so.6"), "\(cxxDynamic)")
        let cxxWritten = try Data(contentsOf: URL(fileURLWithPath: cxxCapture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(cxxWritten.count >= expected.count && cxxWritten.prefix(expected.count).elementsEqual(expected))
    }

    /// A C++ host: argv DEVICE SOUND; plays SOUND critical at 0.5, prints how it ended.
    func compileCxxHost(prefix: String) throws -> String {
        let source = folder.file("cxx-host.cpp")
        try #"""
            #include <noti-play.h>
            #include <condition_variable>
            #include <iostream>
            #include <mutex>
            #include <stdexcept>
            #include <string>

            static std::mutex lock;
            static std::condition_variable changed;
            static std::string ending;

            static void ended(uint64_t, noti_play_result result, const char *detail, void *) {
                std::lock_guard<std::mutex> held(lock);
                ending = result == NOTI_PLAY_FINISHED ? std::string("finished") : std::string("failed: ") + detail;
                changed.notify_all();
            }

            int main(int, char **argv) {
                noti_play *player = noti_play_new(argv[1], nullptr, 0);
                try {
                    throw std::runtime_error("the host's own exception");
                } catch (const std::exception &error) {
                    std::cout << error.what() << "\n";
                }
                char *error = nullptr;
                if (!player || !noti_play_file(player, argv[2], 0.5f, NOTI_PLAY_CRITICAL, ended, nullptr, &error)) {
                    std::cerr << (error ? error : "no player") << "\n";
                    return 2;
                }
                std::unique_lock<std::mutex> held(lock);
                changed.wait(held, [] { return !ending.empty(); });
                std::cout << ending << std::endl;
                held.unlock();
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let flags = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"],
                                      environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"])
        #expect(flags.status == 0, "\(flags.stderr)")
        let host = folder.file("cxx-host")
        try TestTools.runChecked("g++", ["-std=c++17", "-Wall", "-Werror", "-o", host, source]
            + flags.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init))
        return host
    }
}
