import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// The signals fixtures are made from: a rising chirp, a falling chirp and noise, 0.7 s at 44.1 kHz,
/// written by ffmpeg as 64-bit float WAV (and 16-bit for Python, whose writers take integers).
enum Signal: String, Sendable, CaseIterable {
    case stereo, mono, six, stereo16

    static let sampleRate = 44100
    static let frameCount = 30870  // 0.7 s: not a multiple of any IMA block or packet

    var channelCount: Int { self == .mono ? 1 : self == .six ? 6 : 2 }

    /// ffmpeg's `aevalsrc` expressions, one per channel.
    var expressions: [String] {
        let up = "0.6*sin(2*PI*(200+4000*t)*t)"
        let down = "0.5*sin(2*PI*(3000-2500*t)*t)"
        func noise(_ seed: Int) -> String { "0.2*(random(\(seed))-0.5)" }
        switch self {
        case .mono: return ["\(up)+\(noise(0))"]
        case .stereo, .stereo16: return ["\(up)+\(noise(0))", "\(down)+\(noise(1))"]
        case .six:
            return (0..<6).map { c in "\(0.3 + 0.1 * Double(c))*sin(2*PI*(\(300 * (c + 1))+\(1000 * c)*t)*t)+\(noise(c))" }
        }
    }

    func make(into path: String) throws {
        let layout = self == .six ? ":c=5.1" : ""
        let source = "aevalsrc=exprs='\(expressions.joined(separator: "|"))':s=\(Signal.sampleRate):d=0.7\(layout)"
        let codec = self == .stereo16 ? "pcm_s16le" : "pcm_f64le"
        try TestTools.runChecked("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", source, "-c:a", codec, path])
    }
}

/// How a tool that is not ours writes one fixture.
enum Recipe: Sendable {
    /// `ffmpeg -i SIGNAL ARGS OUT`
    case ffmpeg(Signal, [String])
    /// `ffmpeg -i SIGNAL ARGS -f wav -` with stdout saved: a streamed WAV whose sizes were never
    /// patched (RIFF and data sizes 0xFFFFFFFF, no usable `fact`).
    case ffmpegPipe(Signal, [String])
    /// `sox SIGNAL ARGS OUT`
    case sox(Signal, [String])
    /// `sndfile-convert ARGS SIGNAL OUT` (libsndfile as a writer; ffmpeg and sox still check it)
    case sndfile(Signal, [String])
    /// Python's `wave`/`aifc` modules: `python3 writer.py KIND WIDTH SIGNAL OUT`.
    case python(kind: String, width: Int)

    var tool: String {
        switch self {
        case .ffmpeg, .ffmpegPipe: "ffmpeg"
        case .sox: "sox"
        case .sndfile: "sndfile-convert"
        case .python: "python"
        }
    }
}

/// How many frames a fixture truly holds.
enum FrameTruth: Sendable, Equatable {
    /// Exactly the signal's frames: the header (or `fact`) says so.
    case signal
    /// The signal padded to whole packets: the writer recorded no shorter length (ffmpeg's IMA
    /// `fact` counts its padded last block; AIFC/CAF ima4 without `pakt` count whole packets).
    case wholePackets
    /// A count the recipe chose (trimmed to an odd length, say).
    case exactly(Int)
}

/// The reference decoders.
enum Reference: String, Sendable, CaseIterable {
    case libsndfile, ffmpeg, sox
}

/// What one reference decoder is expected to make of a fixture.
struct ReferenceExpectation: Sendable {
    var reference: Reference
    enum Outcome: Sendable { case decodes, refuses, skipped }
    /// `refuses`: the test checks that it still does. `skipped`: not compared, because the reference
    /// is known to be wrong on the form or decodes through another reference.
    var outcome = Outcome.decodes
    /// Largest absolute difference allowed from our Float output; 0 is bit for bit.
    var tolerance: Float = 0
    /// The reference ignores `fact` and decodes the padding of the last IMA block as well, so our
    /// frames are compared with its first frames.
    var decodesPadding = false
    /// Why the expectation is not "opens, exact, same length".
    var note = ""
}

struct Fixture: Sendable, CustomTestStringConvertible {
    var container: Container
    /// afconvert's name for the encoding (`LEI16`, `BEF32`, `UI8`, `ulaw`, `ima4`, `ima-adpcm`).
    var encoding: String
    var recipe: Recipe
    var variant: String
    var fileExtension: String
    var frames: FrameTruth
    var references: [ReferenceExpectation]

    var signal: Signal {
        switch recipe {
        case .ffmpeg(let s, _), .ffmpegPipe(let s, _), .sox(let s, _), .sndfile(let s, _): s
        case .python: .stereo16
        }
    }

    var testDescription: String {
        let variantText = variant.isEmpty ? "" : ", \(variant)"
        return "\(container.rawValue) × \(encoding) × \(recipe.tool) (\(signal.channelCount) ch\(variantText))"
    }

    var fileName: String {
        let slug = testDescription.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return String(slug) + "." + fileExtension
    }

    /// This fixture's own expectation for `reference`, else the rule for its form.
    func expectation(_ reference: Reference) -> ReferenceExpectation {
        references.first { $0.reference == reference } ?? ReferenceExpectation.rule(for: self, reference)
    }
}

/// Makes each fixture once per test process, on first use, in one temporary folder.
final class FixtureFactory: @unchecked Sendable {
    static let shared = FixtureFactory()

    let directory: TemporaryDirectory
    private let lock = NSLock()
    private var fileLocks: [String: NSLock] = [:]

    private init() {
        directory = TemporaryDirectory("noti-play-reference")
        // Statics are never deinitialised, so remove the folder when the test process exits.
        FixtureFactory.pathToRemove = directory.path
        atexit { if let path = FixtureFactory.pathToRemove { try? FileManager.default.removeItem(atPath: path) } }
    }

    nonisolated(unsafe) private static var pathToRemove: String?

    /// The path of `signal`, made on first use.
    func path(of signal: Signal) throws -> String {
        try once("signal-\(signal.rawValue).wav") { try signal.make(into: $0) }
    }

    /// The path of `fixture`, made on first use.
    func path(of fixture: Fixture) throws -> String {
        let input = try path(of: fixture.signal)
        return try once(fixture.fileName) { out in
            switch fixture.recipe {
            case .ffmpeg(_, let args):
                try TestTools.runChecked("ffmpeg", ["-y", "-v", "error", "-i", input] + args + [out])
            case .ffmpegPipe(_, let args):
                let result = try TestTools.runChecked("ffmpeg", ["-v", "error", "-i", input] + args + ["-f", "wav", "-"])
                try Data(result.stdout).write(to: URL(fileURLWithPath: out))
            case .sox(_, let args):
                try TestTools.runChecked("sox", ["-V1", input] + args + [out])
            case .sndfile(_, let args):
                try TestTools.runChecked("sndfile-convert", args + [input, out])
            case .python(let kind, let width):
                let script = try once("writer.py") { try Data(FixtureFactory.pythonWriter.utf8).write(to: URL(fileURLWithPath: $0)) }
                try TestTools.runChecked("python3", [script, kind, String(width), input, out])
            }
        }
    }

    /// Runs `make` for `name` the first time only; concurrent callers for the same file wait.
    func once(_ name: String, _ make: (String) throws -> Void) throws -> String {
        let path = directory.file(name)
        let fileLock = lock.withLock {
            if let existing = fileLocks[name] { return existing }
            let made = NSLock()
            fileLocks[name] = made
            return made
        }
        try fileLock.withLock {
            if !FileManager.default.fileExists(atPath: path) {
                // Write under a temporary name so a failed tool never leaves a half-made fixture.
                let partial = path + ".partial." + (path as NSString).pathExtension
                try make(partial)
                try FileManager.default.moveItem(atPath: partial, toPath: path)
            }
        }
        return path
    }

    /// Python's own writers: `wave` for WAV; `aifc` for AIFF and for AIFF-C with NONE, ULAW and
    /// ALAW (aifc compresses 16-bit input itself with audioop).
    static let pythonWriter = """
        import sys, warnings
        warnings.simplefilter("ignore", DeprecationWarning)  # aifc and audioop: gone in 3.13
        import aifc, audioop, wave
        kind, width, source, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
        with wave.open(source) as w:  # 16-bit PCM from ffmpeg
            channels, rate, pcm = w.getnchannels(), w.getframerate(), w.readframes(w.getnframes())
        data = audioop.lin2lin(pcm, 2, width)
        if kind == "wav":
            if width == 1:
                data = audioop.bias(data, 1, 128)  # WAV's 8-bit samples are unsigned
            f = wave.open(out, "wb")
        else:
            f = aifc.open(out, "wb")
            if kind == "aiff":
                f.aiff()
            else:
                f.setcomptype(kind.encode(), b"")
        f.setnchannels(channels); f.setsampwidth(width); f.setframerate(rate)
        f.writeframes(data)
        f.close()
        """
}

extension ReferenceExpectation {
    /// What each reference makes of a form, found by running them (libsndfile 1.2.0, ffmpeg 5.1,
    /// SoX 14.4.2). A fixture may override it.
    static func rule(for fixture: Fixture, _ reference: Reference) -> ReferenceExpectation {
        var e = ReferenceExpectation(reference: reference)
        let encoding = fixture.encoding
        let channels = fixture.signal.channelCount
        let extensibleRIFX = fixture.container == .rifx && fixture.variant == "EXTENSIBLE"
        // A `fact` shorter than the blocks: libsndfile, ffmpeg and SoX all decode every block.
        if encoding == "ima-adpcm" && fixture.frames == .signal {
            e.decodesPadding = true
        }
        switch reference {
        case .libsndfile:
            if fixture.container == .caf && encoding == "ima4" {
                e.refuse("libsndfile reads no IMA4 in CAF")
            } else if encoding == "ima-adpcm" && channels > 2 {
                e.refuse("libsndfile reads IMA ADPCM WAV of 1 or 2 channels only")
            } else if encoding == "ima-adpcm" && fixture.container == .rf64 {
                e.refuse("libsndfile reads no IMA ADPCM in RF64")
            } else if extensibleRIFX {
                e.refuse("libsndfile reads no WAVE_FORMAT_EXTENSIBLE in RIFX")
            }
        case .ffmpeg:
            if extensibleRIFX || (fixture.container == .rifx && fixture.recipe.tool == "sox" && ["BEF32", "ulaw"].contains(encoding)) {
                e.refuse("ffmpeg 5.1 refuses this RIFX fmt chunk")
            } else if fixture.container == .rifx && !["UI8", "ulaw", "alaw"].contains(encoding) {
                e.skip("ffmpeg 5.1 reads RIFX samples as little-endian")
            } else if encoding == "ima-adpcm" && channels > 2 {
                e.refuse("ffmpeg decodes IMA ADPCM WAV of 1 or 2 channels only")
            } else if encoding == "ima-adpcm" {
                e.tolerance = 0.0025  // seen: 53/32768
                e.note = "ffmpeg's adpcm_ima_wav uses ((2n+1)·step)>>3, not shift-and-add; errors grow within a block"
            } else if encoding == "ima4" {
                e.tolerance = 127.0 / 32768.0
                e.note = "ffmpeg's adpcm_ima_qt keeps the previous packet's predictor when the header is within 127 of it"
            }
        case .sox:
            if fixture.container == .caf {
                e.skip("SoX reads CAF through libsndfile")
            } else if fixture.container == .aifc && ["ulaw", "alaw", "ima4"].contains(encoding) {
                e.refuse("SoX reads no AIFF-C ulaw, alaw or ima4")
            } else if ["LEI32", "BEI32", "LEF32", "BEF32", "LEF64", "BEF64"].contains(encoding) {
                e.tolerance = 1.0 / 16_777_216.0  // one unit in the last place below full scale
                e.note = "SoX passes samples through 32-bit integers and rounds to float ties-up"
            }
        }
        return e
    }

    mutating func refuse(_ why: String) {
        outcome = .refuses
        note = why
    }

    mutating func skip(_ why: String) {
        outcome = .skipped
        note = why
    }
}
