import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The threading contract at the top of noti-play.h, checked as a C daemon lives it: the C
/// scenario programs of Tests/CScenarios/scenarios.c, compiled against the installed library
/// (`pkg-config --cflags --libs noti-play`), each run three ways: as built, under valgrind
/// (memory errors: a callback that touches user_data after noti_play_free, a context used after
/// it was freed), and built with AddressSanitizer. Each program prints one line per check and
/// exits 0 only when every check held.
@Suite struct CScenarioTests {
    enum Scenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case freeWhilePlaying = "free-while-playing"
        case fourThreads = "four-threads"
        case cancelInCallback = "cancel-in-callback"
        case freeInCallback = "free-in-callback"
        case blockingDevice = "blocking-device"
        case slowCallback = "slow-callback"
        var testDescription: String { rawValue }
    }

    enum Mode: String, CaseIterable, Sendable {
        case plain, addressSanitizer = "AddressSanitizer", valgrind
    }

    let folder = TemporaryDirectory("c-scenarios")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Installs what `swift build` made into a fresh prefix, as CLibraryTests does, and compiles
    /// `source` against it with pkg-config's flags and `flags`.
    func build(_ source: String, named name: String, flags: [String]) throws -> String {
        let prefix = folder.file("prefix")
        if !FileManager.default.fileExists(atPath: prefix + "/lib/pkgconfig/noti-play.pc") {
            let buildDirectory = URL(fileURLWithPath: TestTools.notiPlay).deletingLastPathComponent().path
            try TestTools.runChecked(repository + "/scripts/install.sh", ["--prefix", prefix, "--from", buildDirectory])
            // Without its debugging sections, as the release install ships it: valgrind 3.19's
            // reader of DWARF 5 (what swiftc and clang write) gives up on this library, and
            // valgrind with it. The symbol table stays, so reports still name the functions.
            let library = URL(fileURLWithPath: prefix + "/lib/libnoti-play.so").resolvingSymlinksInPath().path
            try TestTools.runChecked("strip", ["--strip-debug", library])
        }
        let pkgConfig = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"],
                                          environment: ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"])
        try #require(pkgConfig.status == 0, "pkg-config: \(pkgConfig.stderr)")
        let program = folder.file(name)
        let compile = try TestTools.run("gcc", ["-Wall", "-Wextra", "-Werror", "-g", "-pthread"] + flags + ["-o", program, source]
            + pkgConfig.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init))
        try #require(compile.status == 0, "gcc \(name): \(compile.stderr)")
        return program
    }

    /// A mono IMA ADPCM CAF of `seconds` at 44.1 kHz in `sounds`; returns the bytes it makes on
    /// a device opened in stereo at least and in FLOAT.
    func makeSound(_ name: String, frequency: Int, seconds: Double, in sounds: String) throws -> Int {
        let path = sounds + "/" + name
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "sine=f=\(frequency):d=\(seconds):sample_rate=44100",
            "-ac", "1", "-c:a", "adpcm_ima_qt", "-y", path,
        ])
        let decoder = try SoundDecoder(path: path)
        let channels = decoder.description.channelCount
        let frames = try decoder.readAll().count / channels
        return frames * max(2, channels) * MemoryLayout<Float>.size
    }

    @Test(arguments: Scenario.allCases) func scenarioHoldsTheContract(_ scenario: Scenario) throws {
        // Every tool is located first: a missing one fails here, with its name, never skips.
        for tool in ["gcc", "pkg-config", "ffmpeg", "strip", "valgrind", "prlimit"] { _ = try TestTools.locate(tool) }
        let source = repository + "/Tests/CScenarios/scenarios.c"
        let plain = try build(source, named: "scenarios", flags: ["-O1"])
        let sanitized = try build(source, named: "scenarios-asan", flags: ["-O1", "-fsanitize=address", "-fno-omit-frame-pointer"])
        let sounds = folder.file("sounds")
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        let shortBytes = try makeSound("short.caf", frequency: 880, seconds: 0.1, in: sounds)
        let secondBytes = try makeSound("second.caf", frequency: 440, seconds: 1, in: sounds)

        for mode in Mode.allCases {
            // Fresh and empty for every run: the user's settings must not interfere.
            let run = folder.file("\(mode.rawValue)")
            for sub in ["config", "data"] {
                try FileManager.default.createDirectory(atPath: run + "/" + sub, withIntermediateDirectories: true)
            }
            var device = "file:FILE=/dev/null,FORMAT=raw"
            var extra: [String] = []
            switch scenario {
            case .blockingDevice:
                // Opening a FIFO that has no reader for writing blocks: the device never opens.
                let fifo = run + "/device.fifo"
                try #require(mkfifo(fifo, 0o600) == 0, "mkfifo \(fifo): \(String(cString: strerror(errno)))")
                device = "file:FILE=\(fifo),FORMAT=raw"
            case .slowCallback:
                // The file device has no clock: it takes samples as fast as they come.
                let capture = run + "/capture.raw"
                device = "file:FILE=\(capture),FORMAT=raw"
                extra = ["--capture", capture, "--expect-bytes", String(shortBytes + secondBytes)]
            default:
                break
            }
            // valgrind runs the program some 20 to 50 times slower: fewer requests there, and
            // looser bounds on how long a call may take (its run is after memory errors; the
            // plain and ASan runs hold the header's bounds).
            extra += mode == .valgrind ? ["--requests", "12", "--time-scale", "10"] : ["--requests", "50"]
            let arguments = [scenario.rawValue, device, sounds] + extra
            var environment = ["XDG_CONFIG_HOME": run + "/config", "XDG_DATA_HOME": run + "/data"]
            let result: ProcessResult
            switch mode {
            case .plain:
                result = try TestTools.run(plain, arguments, environment: environment)
            case .addressSanitizer:
                environment["ASAN_OPTIONS"] = "detect_leaks=0"
                result = try TestTools.run(sanitized, arguments, environment: environment)
            case .valgrind:
                // Leak checking off: the library's detached threads and the Swift runtime's
                // caches are not what this checks; memory errors are (exit status 99). So no
                // freeing of libc's and libstdc++'s buffers at exit either (valgrind does that
                // only for its leak count): a library thread still opening or closing a device
                // that hangs, which noti_play_free leaves to the background, races with it, and valgrind would
                // report libc's exit-time walk over a FILE that thread had just closed.
                // valgrind runs one thread at a time: the render thread, real-time (SCHED_FIFO)
                // where it may be and spinning on a device without a clock while a ringtone
                // loops, would never let the others run. No real-time priority here, then: an
                // RLIMIT_RTPRIO of 0, and for root no CAP_SYS_NICE either.
                let valgrind = try TestTools.locate("valgrind")
                let noRealtime = ["--rtprio=0"] + (geteuid() == 0
                    ? [try TestTools.locate("setpriv"), "--inh-caps=-sys_nice", "--bounding-set=-sys_nice"] : [])
                result = try TestTools.run("prlimit", noRealtime + [
                    valgrind, "--error-exitcode=99", "--leak-check=no", "--track-origins=no",
                    "--run-libc-freeres=no", "--run-cxx-freeres=no", plain,
                ] + arguments, environment: environment)
            }
            let ending = result.signal.map { "was killed by signal \($0)" } ?? "exited \(result.status)"
            #expect(result.status == 0 && result.signal == nil, """
                \(scenario.rawValue) (\(mode.rawValue)) \(ending)
                stdout:
                \(result.stdoutText)
                stderr:
                \(result.stderr)
                """)
        }
    }
}
