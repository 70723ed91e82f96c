import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Synchronization
import Testing

/// Sources made by ffmpeg (not by us) once per test run.
final class ConvertSources: Sendable {
    let folder = TemporaryDirectory("convert-sources")

    /// Name, ffmpeg `aevalsrc` expression (one per channel), rate, seconds, codec. Lengths are
    /// not multiples of 64 or of an IMA block, so every last packet is padded.
    static let specs: [(name: String, expression: String, rate: Int, seconds: String, codec: String)] = [
        ("stereo16.wav", "0.5*sin(2*PI*(200+4000*t)*t)+0.05*(random(0)-0.5)|0.4*sin(2*PI*(300+3000*t)*t)+0.05*(random(1)-0.5)",
         44100, "1", "pcm_s16le"),
        ("mono24.wav", "0.7*sin(2*PI*(100+9000*t)*t)+0.01*(random(0)-0.5)", 48000, "0.71", "pcm_s24le"),
        // Peaks of 1.3: integer and G.711 outputs must clip, float outputs keep them.
        ("float.wav", "1.3*sin(2*PI*440*t)*sin(2*PI*3*t)|0.3*sin(2*PI*(50+2000*t)*t)", 22050, "0.5", "pcm_f32le"),
        ("six.wav", "0.5*sin(2*PI*220*t)|0.5*sin(2*PI*330*t)|0.5*sin(2*PI*440*t)|0.3*sin(2*PI*60*t)|0.5*sin(2*PI*550*t)|0.5*sin(2*PI*660*t)",
         48000, "0.301", "pcm_s16le"),
    ]

    /// Other encodings, also made by ffmpeg, for the LEF32 test.
    static let extra: [(name: String, from: String, options: [String])] = [
        ("ulaw.wav", "stereo16.wav", ["-c:a", "pcm_mulaw"]),
        ("alaw.wav", "stereo16.wav", ["-c:a", "pcm_alaw"]),
        ("ima4.caf", "stereo16.wav", ["-c:a", "adpcm_ima_qt"]),
        ("ima4.aifc", "mono24.wav", ["-c:a", "adpcm_ima_qt"]),
    ]

    init() throws {
        for s in Self.specs {
            try TestTools.runChecked("ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=\(s.expression):s=\(s.rate):d=\(s.seconds)",
                "-c:a", s.codec, folder.file(s.name),
            ])
        }
        for e in Self.extra {
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-y", "-i", folder.file(e.from)] + e.options + [folder.file(e.name)])
        }
    }

    private static let cache = Mutex<ConvertSources?>(nil)

    static func shared() throws -> ConvertSources {
        try cache.withLock { cached in
            if let cached { return cached }
            let made = try ConvertSources()
            cached = made
            return made
        }
    }

    func path(_ name: String) -> String { folder.file(name) }
}

/// One form `noti-play convert` writes: its -f and -d names and what the decoder must see.
struct OutputForm: Sendable, CustomStringConvertible {
    var fileFormat: String
    var extensionName: String
    var data: String
    var container: Container
    var encoding: Encoding

    var description: String { "\(fileFormat)/\(data)" }

    static func pcm(_ bits: Int, float: Bool = false, big: Bool, signed: Bool = true) -> Encoding {
        .linearPCM(.init(bitsPerSample: bits, isFloat: float, isBigEndian: big, isSigned: signed))
    }

    static let all: [OutputForm] = {
        var forms: [OutputForm] = []
        func add(_ f: String, _ ext: String, _ container: Container, _ list: [(String, Encoding)]) {
            forms += list.map { OutputForm(fileFormat: f, extensionName: ext, data: $0.0, container: container, encoding: $0.1) }
        }
        add("WAVE", "wav", .wave, [
            ("UI8", pcm(8, big: false, signed: false)), ("LEI16", pcm(16, big: false)), ("LEI24", pcm(24, big: false)),
            ("LEI32", pcm(32, big: false)), ("LEF32", pcm(32, float: true, big: false)), ("LEF64", pcm(64, float: true, big: false)),
            ("ulaw", .muLaw), ("alaw", .aLaw), ("ima4", .imaADPCM),
        ])
        add("AIFF", "aiff", .aiff, [
            ("I8", pcm(8, big: true)), ("BEI16", pcm(16, big: true)), ("BEI24", pcm(24, big: true)), ("BEI32", pcm(32, big: true)),
        ])
        add("AIFC", "aifc", .aifc, [
            ("I8", pcm(8, big: true)), ("BEI16", pcm(16, big: true)), ("BEI24", pcm(24, big: true)), ("BEI32", pcm(32, big: true)),
            ("LEI16", pcm(16, big: false)), ("BEF32", pcm(32, float: true, big: true)), ("BEF64", pcm(64, float: true, big: true)),
            ("ulaw", .muLaw), ("alaw", .aLaw), ("ima4", .appleIMA4),
        ])
        add("caff", "caf", .caf, [
            ("I8", pcm(8, big: true)), ("LEI16", pcm(16, big: false)), ("BEI16", pcm(16, big: true)),
            ("LEI24", pcm(24, big: false)), ("BEI24", pcm(24, big: true)), ("LEI32", pcm(32, big: false)),
            ("BEI32", pcm(32, big: true)), ("LEF32", pcm(32, float: true, big: false)), ("BEF32", pcm(32, float: true, big: true)),
            ("LEF64", pcm(64, float: true, big: false)), ("BEF64", pcm(64, float: true, big: true)),
            ("ulaw", .muLaw), ("alaw", .aLaw), ("ima4", .appleIMA4),
        ])
        return forms
    }()
}

@Suite struct ConvertTests {
    let folder = TemporaryDirectory("convert")

    func convert(_ arguments: [String]) throws -> ProcessResult {
        try TestTools.run(TestTools.notiPlay, ["convert"] + arguments)
    }

    func decodeOurs(_ path: String) throws -> (StreamDescription, [Float]) {
        let decoder = try SoundDecoder(path: path)
        return (decoder.description, try decoder.readAll())
    }

    /// Every container × encoding convert writes, from four sources, decoded by ffmpeg, by
    /// libsndfile and by our decoder: all three agree sample for sample, exactly.
    ///
    /// Lengths: ours is the true length everywhere except AIFC ima4, whose COMM can only count
    /// whole 64-frame packets. ffmpeg 5.1 and libsndfile ignore WAV's `fact` and CAF's `pakt`
    /// remainder and also return the zero-padded tail of the last packet; the comparison with
    /// them covers the true length and checks that only a last packet's padding is extra.
    @Test(arguments: OutputForm.all)
    func everyFormAgreesWithFFmpegAndLibSndFile(form: OutputForm) throws {
        let sources = try ConvertSources.shared()
        for spec in ConvertSources.specs {
            let source = sources.path(spec.name)
            let (sourceDescription, sourceSamples) = try decodeOurs(source)
            let channels = sourceDescription.channelCount
            let out = folder.file("\(spec.name)-\(form.data).\(form.extensionName)")
            let result = try convert([source, out, "-f", form.fileFormat, "-d", form.data])
            try #require(result.status == 0, "\(form) from \(spec.name): \(result.stderr)")
            #expect(result.stderr.isEmpty)

            let (description, ours) = try decodeOurs(out)
            #expect(description.container == form.container)
            #expect(description.encoding == form.encoding)
            #expect(description.sampleRate == sourceDescription.sampleRate)
            #expect(description.channelCount == channels)
            let trueFrames = sourceDescription.frameCount
            let framesPerPacket = description.framesPerPacket
            let paddedFrames = (trueFrames + framesPerPacket - 1) / framesPerPacket * framesPerPacket
            let expectedFrames = form.encoding == .appleIMA4 && form.container == .aifc ? paddedFrames : trueFrames
            #expect(description.frameCount == expectedFrames, "\(form) from \(spec.name)")
            #expect(ours.count == expectedFrames * channels)

            // ffmpeg 5.1 decodes IMA ADPCM of at most 2 channels ("Invalid number of channels").
            if !(isIMA(form) && channels > 2) {
                let ffmpeg = try FFmpeg.decode(out)
                #expect(ffmpeg.channelCount == channels && ffmpeg.sampleRate == Int(sourceDescription.sampleRate))
                // ffmpeg 5.1 expands WAV IMA ADPCM nibbles with ((2n+1)·step)>>3, not the
                // reference shift-and-add form: its samples drift from the reference decode
                // within each block (the header resets it).
                let tolerance: Float = form.encoding == .imaADPCM ? Self.ffmpegWAVIMATolerance : 0
                expectAgreement(ours, ffmpeg.samples, reference: "ffmpeg", form: form, source: spec.name, paddedSamples: paddedFrames * channels, tolerance: tolerance)
            }

            if form.container == .caf && form.encoding == .appleIMA4 {
                #expect(LibSndFile.decode(out) == nil, "libsndfile has learnt IMA4 in CAF: compare with it too")
            } else if isIMA(form) && channels > 2 {
                // libsndfile writes IMA for 1 or 2 channels only; it refuses to open 6-channel
                // WAV IMA ADPCM, and its decode of 6-channel AIFC ima4 depends on the read size
                // (sf_readf_float of 64 frames at a time and of the whole file part at sample
                // 4096, its internal buffer), so it is no reference there.
                // Our decoder and the signal-to-noise check below vouch for these.
            } else {
                let sndfile = try #require(LibSndFile.decode(out), "libsndfile cannot read \(form)")
                #expect(sndfile.channelCount == channels && sndfile.sampleRate == Int(sourceDescription.sampleRate))
                expectAgreement(ours, sndfile.samples, reference: "libsndfile", form: form, source: spec.name, paddedSamples: paddedFrames * channels)
            }

            // And the encoder encoded the source, not merely something every decoder agrees on.
            let compared = min(ours.count, sourceSamples.count)
            let expected = sourceSamples.prefix(compared).map { Self.clip($0, for: form.encoding) }
            let decoded = Array(ours.prefix(compared))
            switch Self.fidelity(form.encoding) {
            case .maximumError(let tolerance):
                let worst = SampleComparison.maximumDifference(expected, decoded) ?? .infinity
                #expect(worst <= tolerance, "\(form) from \(spec.name): error \(worst) > \(tolerance)")
            case .signalToNoise(let decibels):
                let snr = Self.signalToNoise(expected, decoded)
                #expect(snr > decibels, "\(form) from \(spec.name): \(snr) dB")
            }
        }
    }

    /// Reference decodes hold the same samples as ours over the true length, and at most a
    /// last packet's padding beyond it (only for the padded ADPCM forms).
    func expectAgreement(
        _ ours: [Float], _ reference: [Float], reference name: String, form: OutputForm, source: String, paddedSamples: Int,
        tolerance: Float = 0
    ) {
        if isIMA(form) {
            #expect(reference.count == paddedSamples, "\(name) on \(form) from \(source): \(reference.count) samples")
        } else {
            #expect(reference.count == ours.count, "\(name) on \(form) from \(source): \(reference.count) samples, ours \(ours.count)")
        }
        let prefix = Array(reference.prefix(ours.count))
        let mismatch = SampleComparison.firstMismatch(ours, prefix, tolerance: tolerance)
        #expect(mismatch == nil, "\(name) on \(form) from \(source) differs at sample \(mismatch ?? -1) by up to \(SampleComparison.maximumDifference(ours, prefix) ?? -1)")
    }

    func isIMA(_ form: OutputForm) -> Bool { form.encoding == .imaADPCM || form.encoding == .appleIMA4 }

    /// The drift measured on these sources is up to 63/32768; allow twice that.
    static let ffmpegWAVIMATolerance: Float = 128 / 32768

    enum Fidelity {
        case maximumError(Float)
        case signalToNoise(Double)
    }

    /// How close an encoding's decode must be to its source: exact for float, half a step for
    /// integer PCM, and for G.711 the distance from full scale to the top code (µ-law's is
    /// 32124, so 643/32768; elsewhere half an interval, at most 512/32768), and a signal-to-noise
    /// ratio for 4-bit ADPCM.
    static func fidelity(_ encoding: Encoding) -> Fidelity {
        switch encoding {
        case .linearPCM(let f) where f.isFloat: .maximumError(0)
        // 32-bit: Float holds 24 bits, so the decode itself rounds by up to 2^-25 more.
        case .linearPCM(let f): .maximumError(1 / Float(1 << f.bitsPerSample) + 1 / Float(1 << 25))
        case .muLaw, .aLaw: .maximumError(644 / 32768)
        case .imaADPCM, .appleIMA4: .signalToNoise(20)
        }
    }

    /// The source as an encoding can hold it: integer forms clip at their largest values.
    static func clip(_ x: Float, for encoding: Encoding) -> Float {
        let top: Float
        switch encoding {
        case .linearPCM(let f) where f.isFloat: return x
        case .linearPCM(let f): top = 1 - 1 / Float(1 << (f.bitsPerSample - 1))
        case .muLaw: top = 32124 / 32768
        case .aLaw: top = 32256 / 32768
        case .imaADPCM, .appleIMA4: top = 32767 / 32768
        }
        return min(max(x, -1), top)
    }

    static func signalToNoise(_ signal: [Float], _ decoded: [Float]) -> Double {
        var s = 0.0, n = 0.0
        for (a, b) in zip(signal, decoded) {
            s += Double(a) * Double(a)
            n += Double(a - b) * Double(a - b)
        }
        return 10 * log10(s / max(n, 1e-30))
    }

    /// `-d LEF32` into WAVE gives ffmpeg's float decode of the source within 1e-6, from sources
    /// of several encodings that ffmpeg wrote. IMA sources compare over our (true) length: an
    /// AIFC ima4 file states only whole packets, a CAF's `pakt` trims the last one.
    ///
    /// ffmpeg-written IMA4 compares within 127/32768: ffmpeg's decoder keeps its running
    /// predictor when a packet header has the same step index and a predictor within 127 of
    /// it, where the format (Apple, libsndfile, our decoder) restarts from the header. Its own
    /// encoder does not avoid that case; ours does (see AppleIMA4Encoder).
    @Test(arguments: ["stereo16.wav", "mono24.wav", "float.wav", "six.wav", "ulaw.wav", "alaw.wav", "ima4.caf", "ima4.aifc"])
    func floatOutputMatchesFFmpegDecodeOfTheSource(name: String) throws {
        let source = try ConvertSources.shared().path(name)
        let out = folder.file(name + ".f32.wav")
        let result = try convert([source, out, "-f", "WAVE", "-d", "LEF32"])
        try #require(result.status == 0, "\(name): \(result.stderr)")
        let ours = try FFmpeg.decode(out)
        let reference = try FFmpeg.decode(source)
        #expect(ours.sampleRate == reference.sampleRate && ours.channelCount == reference.channelCount)
        if name.hasPrefix("ima4") {
            #expect(ours.samples.count <= reference.samples.count)
            #expect(reference.samples.count - ours.samples.count < 64 * reference.channelCount)
        } else {
            #expect(ours.samples.count == reference.samples.count)
        }
        let worst = SampleComparison.maximumDifference(ours.samples, Array(reference.samples.prefix(ours.samples.count)))
        let tolerance: Float = name.hasPrefix("ima4") ? 127 / 32768 : 1e-6
        #expect(worst != nil && worst! <= tolerance, "\(name): \(String(describing: worst))")
    }

    /// Without -d the source's encoding stays where the container holds it; otherwise the same
    /// PCM in the container's byte order; otherwise 16-bit PCM.
    @Test(arguments: [
        ("stereo16.wav", "out.caf", "LEI16"), ("stereo16.wav", "out.aiff", "BEI16"), ("mono24.wav", "out.aif", "BEI24"),
        ("float.wav", "out.aifc", "BEF32"), ("float.wav", "out.aiff", "BEI16"), ("ulaw.wav", "out.aifc", "ulaw"),
        ("ima4.caf", "out.aifc", "ima4"), ("ima4.caf", "out.wav", "LEI16"), ("alaw.wav", "out.aiff", "BEI16"),
    ])
    func keepsTheSourceEncodingWhenTheContainerHoldsIt(name: String, output: String, expected: String) throws {
        let source = try ConvertSources.shared().path(name)
        let out = folder.file(name + "-" + output)
        let result = try convert([source, out])
        try #require(result.status == 0, "\(name) → \(output): \(result.stderr)")
        let description = try SoundDecoder(path: out).description
        #expect(description.encoding.afconvertName == expected, "\(name) → \(output)")
    }

    @Test func rateEqualToTheSourceIsAcceptedAndFormatNamesIgnoreCase() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("same-rate.caf")
        let result = try convert([source, out, "-f", "CAFF", "-d", "bei24@44100"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try SoundDecoder(path: out).description.encoding.afconvertName == "BEI24")
    }

    /// Refusals: exactly one line `noti-play: …` on stderr, no output or temporary file left in
    /// the folder, and the status: 64 (EX_USAGE, as the man page says) when the options cannot
    /// work whatever the input, 1 when it is the input (its rate) that they do not fit.
    @Test(arguments: [
        (["-d", "LEF32"], "out.aiff", 64, "noti-play: OUT: AIFF holds big-endian integer PCM only; use -f WAVE or -f caff for LEF32"),
        (["-d", "BEI16"], "out.wav", 64, "noti-play: OUT: WAVE holds little-endian PCM only; use -f AIFF or -f AIFC or -f caff for BEI16"),
        (["-d", "LEF32", "-f", "AIFC"], "out.x", 64, "noti-play: OUT: AIFC holds big-endian float only; use -f WAVE or -f caff for LEF32"),
        (["-d", "LEI24"], "out.aifc", 64, "noti-play: OUT: AIFC holds little-endian (sowt) PCM of 16 bits only; use -f WAVE or -f caff for LEI24"),
        (["-d", "ulaw"], "out.aiff", 64, "noti-play: OUT: AIFF holds big-endian integer PCM only; use -f WAVE or -f AIFC or -f caff for ulaw"),
        (["-d", "I8"], "out.wav", 64, "noti-play: OUT: WAVE 8-bit PCM is unsigned; use -d UI8, or -f AIFF or -f AIFC or -f caff for I8"),
        (["-d", "UI8"], "out.caf", 64, "noti-play: OUT: CAF 8-bit PCM is signed; use -d I8, or -f WAVE for UI8"),
        (["-d", "LEI12"], "out.wav", 64, "noti-play: unknown data format 'LEI12' for -d; use LEI16, BEI16, LEI24, BEI24, LEI32, BEI32, LEF32, BEF32, LEF64, BEF64, I8, UI8, ima4, ulaw or alaw"),
        (["-d", "LEI16@fast"], "out.wav", 64, "noti-play: 'fast' in -d LEI16@fast is not a sample rate"),
        (["-f", "MP3"], "out.wav", 64, "noti-play: unknown file format 'MP3' for -f; use caff, WAVE, AIFF or AIFC"),
        ([], "out.ogg", 64, "noti-play: OUT: cannot tell the container from the extension 'ogg'; name it with -f caff, WAVE, AIFF or AIFC"),
    ])
    func refusesWithOneLine(options: [String], output: String, status: Int32, message: String) throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file(output)
        let result = try convert([source, out] + options)
        #expect(result.status == status, "\(result.stderr)")
        let expected = message.replacingOccurrences(of: "OUT", with: out).replacingOccurrences(of: "(IN", with: "(" + source)
        #expect(result.stderr == expected + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func refusesAMissingInput() throws {
        let missing = folder.file("missing.wav")
        let result = try convert([missing, folder.file("out.caf")])
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("noti-play: \(missing): "))
        #expect(result.stderr.hasSuffix("No such file or directory\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func refusesAFileThatIsNotASound() throws {
        let text = folder.file("notes.wav")
        try "not a sound, just words\n".write(toFile: text, atomically: true, encoding: .utf8)
        let result = try convert([text, folder.file("out.caf")])
        #expect(result.status != 0)
        #expect(result.stderr == "noti-play: \(text): not a WAV, AIFF or CAF file, nor a format libsndfile reads\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.wav"])
    }

    @Test func refusesAnUnwritableOutput() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("no/such/folder/out.wav")
        let result = try convert([source, out])
        #expect(result.status != 0)
        #expect(result.stderr == "noti-play: \(out): cannot create: No such file or directory\n")

        let directory = folder.file("folder.wav")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let result2 = try convert([source, directory])
        #expect(result2.status != 0)
        #expect(result2.stderr == "noti-play: \(directory): is a directory\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["folder.wav"])
    }

    /// A refused conversion leaves an existing output as it was; a successful one replaces it,
    /// even when it is the very file being read.
    @Test func replacesTheOutputOnlyOnSuccess() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("existing.wav")
        try FileManager.default.copyItem(atPath: source, toPath: out)
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(try convert([source, out, "-d", "BEI16"]).status != 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)

        let result = try convert([out, out, "-d", "LEF32"])
        #expect(result.status == 0, "\(result.stderr)")
        let converted = try SoundDecoder(path: out)
        #expect(converted.description.encoding.afconvertName == "LEF32")
        let original = try SoundDecoder(path: source).readAll()
        #expect(try converted.readAll() == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["existing.wav"])
    }
}

/// Hostile conditions and faults: interruptions, the mode of a replaced file, a crash after the
/// rename, inputs that are not files, names that are not UTF-8 or hold a newline.
@Suite struct ConvertFaultTests {
    let folder = TemporaryDirectory("convert-faults")
    /// The children's stdout and stderr files, kept out of `folder`, whose listing is asserted.
    let logs = TemporaryDirectory("convert-logs")

    /// A minute of stereo 16-bit sound by ffmpeg (10 MB): written as LEF64 (42 MB), its
    /// conversion takes about a second in a debug build, long enough to be interrupted mid-way.
    static func longSource(in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("long.wav")
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=60", "-ac", "2", "-c:a", "pcm_s16le", path,
        ])
        return path
    }

    func names(in folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    /// Waits for `child` to end, at most `seconds` (a bound that catches a hang, not a timing
    /// claim); a child still running then is killed and nil returned.
    func status(of child: ChildProcess, within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            // WNOWAIT: only look; child.wait() reaps it (so its pid cannot be reused meanwhile).
            var info = siginfo_t()
            if waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == child.pid {
                return child.wait()
            }
            usleep(2000)
        }
        child.signal(SIGKILL)
        child.wait()
        return nil
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    /// SIGINT, SIGTERM or SIGHUP while convert writes: the temporary file is removed, the
    /// destination is as it was (absent, or the previous file byte for byte), the status is
    /// 128 + the signal and stderr says so in one line.
    @Test(arguments: [(SIGINT, false), (SIGTERM, true), (SIGHUP, true), (SIGINT, true)])
    func anInterruptionLeavesNoTemporaryFileAndTheDestinationAsItWas(signal: Int32, replacing: Bool) throws {
        let sources = TemporaryDirectory("convert-long")
        let source = try Self.longSource(in: sources)
        let out = folder.file("out.caf")
        if replacing { try FileManager.default.copyItem(atPath: ConvertSources.shared().path("ima4.caf"), toPath: out) }
        let before = replacing ? try Data(contentsOf: URL(fileURLWithPath: out)) : nil

        let child = try ChildProcess(TestTools.notiPlay, ["convert", source, out, "-d", "LEF64"], in: logs)
        // Mid-way: once the temporary file exists, well before a 42 MB file is written.
        let deadline = Date().addingTimeInterval(30)
        while try !names(in: folder).contains(where: { $0.hasPrefix(".out.caf.noti-play-") }) && Date() < deadline {
            usleep(500)
        }
        child.signal(signal)
        let status = status(of: child, within: 30)

        let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][signal]!
        #expect(status == 128 + signal)
        #expect(child.stderr == "noti-play: \(out): not written: interrupted by \(name)\n")
        #expect(try names(in: folder) == (replacing ? ["out.caf"] : []))
        if let before { #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before) }
    }

    /// A signal the command inherited as ignored (`nohup`, a background job's SIGINT) stays
    /// ignored: the conversion completes.
    @Test func anIgnoredSignalDoesNotInterrupt() throws {
        let sources = TemporaryDirectory("convert-long")
        let source = try Self.longSource(in: sources)
        let out = folder.file("out.caf")
        let script = "trap '' HUP && exec \"$0\" convert \"$1\" \"$2\" -d LEF64"
        let child = try ChildProcess("/bin/sh", ["-c", script, TestTools.notiPlay, source, out], in: logs)
        let deadline = Date().addingTimeInterval(30)
        while try !names(in: folder).contains(where: { $0.hasPrefix(".out.caf.noti-play-") }) && Date() < deadline {
            usleep(500)
        }
        child.signal(SIGHUP)
        #expect(status(of: child, within: 60) == 0, "\(child.stderr)")
        #expect(child.stderr.isEmpty)
        #expect(try names(in: folder) == ["out.caf"])
        #expect(try SoundDecoder(path: out).description.frameCount == 60 * 44100)
    }

    /// Converting over a file keeps its permission bits (0751 is no 0666 & ~umask whatever
    /// the umask, so this fails if they are lost).
    @Test(arguments: [0o640, 0o751, 0o600] as [mode_t])
    func replacingAFileKeepsItsMode(mode: mode_t) throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("existing.caf")
        try FileManager.default.copyItem(atPath: try ConvertSources.shared().path("ima4.caf"), toPath: out)
        #expect(chmod(out, mode) == 0)
        let result = try TestTools.run(TestTools.notiPlay, ["convert", source, out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try SoundDecoder(path: out).description.encoding.afconvertName == "LEI16")  // replaced
        #expect(String(Self.mode(out), radix: 8) == String(mode, radix: 8))
        #expect(try names(in: folder) == ["existing.caf"])
    }

    /// As root, the replaced file's owner and group are kept too.
    @Test(.enabled(if: geteuid() == 0, "only root may give a file to another user"))
    func replacingAFileAsRootKeepsItsOwnerAndGroup() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("theirs.wav")
        try FileManager.default.copyItem(atPath: source, toPath: out)
        #expect(chown(out, 65534, 65534) == 0 && chmod(out, 0o640) == 0)
        let result = try TestTools.run(TestTools.notiPlay, ["convert", source, out, "-d", "LEF32"])
        #expect(result.status == 0, "\(result.stderr)")
        var info = stat()
        #expect(stat(out, &info) == 0)
        #expect(info.st_uid == 65534 && info.st_gid == 65534 && info.st_mode & 0o7777 == 0o640)
        #expect(try SoundDecoder(path: out).description.encoding.afconvertName == "LEF32")
    }

    /// A new file gets 0666 less the umask, as any program's would.
    @Test(arguments: [(0o027, 0o640), (0o002, 0o664), (0o077, 0o600)] as [(mode_t, mode_t)])
    func aNewFileFollowsTheUmask(umask: mode_t, expected: mode_t) throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("new.wav")
        let result = try TestTools.run("/bin/sh", [
            "-c", "umask \(String(umask, radix: 8)) && exec \"$0\" convert \"$1\" \"$2\"", TestTools.notiPlay, source, out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(Self.mode(out), radix: 8) == String(expected, radix: 8))
    }

    /// The written file is fsynced before the rename and its folder after it, so a crash cannot
    /// leave an empty file under the final name. Only the system calls show this: strace
    /// (Debian package `strace`) records them in order.
    @Test func theDataReachesTheDiskBeforeTheRenameAndTheRenameAfter() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let out = folder.file("synced.wav")
        let trace = logs.file("strace.log")
        let result = try TestTools.run("strace", [
            "-f", "-s", "4096", "-o", trace, "-e", "trace=openat,open,close,fsync,fdatasync,rename,renameat,renameat2",
            TestTools.notiPlay, "convert", source, out,
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)

        func index(_ what: String, after start: Int = 0, _ matches: (String) -> Bool) throws -> Int {
            try #require(lines.indices.dropFirst(start).first { matches(lines[$0]) }, "no \(what) in:\n\(lines.joined(separator: "\n"))")
        }
        func descriptor(_ line: String) -> String { String(line.split(separator: " = ").last ?? "") }

        let temporaryPrefix = "\"\(folder.path)/.synced.wav.noti-play-"
        let created = try index("temporary file created") { $0.contains("open") && $0.contains(temporaryPrefix) && $0.contains("O_CREAT") }
        let file = descriptor(lines[created])
        let synced = try index("fsync of the file", after: created) { $0.contains("sync(\(file))") && $0.hasSuffix(" = 0") }
        let renamed = try index("rename", after: created) { $0.contains("rename") && $0.contains(temporaryPrefix) && $0.contains("\"\(out)\"") }
        let closedBefore = lines[created..<renamed].contains { $0.contains("close(\(file))") }
        #expect(synced < renamed)
        #expect(closedBefore)
        let folderOpened = try index("the folder opened", after: renamed) { $0.contains("\"\(folder.path)/\"") && $0.contains("O_DIRECTORY") }
        let folderDescriptor = descriptor(lines[folderOpened])
        _ = try index("fsync of the folder", after: folderOpened) { $0.contains("fsync(\(folderDescriptor))") && $0.hasSuffix(" = 0") }
    }

    /// A FIFO or a device as input is refused at once with one line, instead of blocking.
    @Test func aFIFOOrADeviceAsInputIsRefusedAtOnce() throws {
        let fifo = folder.file("pipe.wav")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (input, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a device")] {
            let child = try ChildProcess(TestTools.notiPlay, ["convert", input, folder.file("out.caf")], in: logs)
            #expect(status(of: child, within: 20) == 1, "\(input) blocked")
            #expect(child.stderr == "noti-play: \(input): is \(kind), not a regular file\n")
        }
        #expect(try names(in: folder) == ["pipe.wav"])
    }

    /// `$'\xe9t\xe9.wav'` (Latin-1, not UTF-8) converts to `$'\xe9t\xe9.caf'`, and a missing
    /// one is named with its bytes escaped.
    @Test func aNameThatIsNotUTF8Converts() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let input: [UInt8] = Array(folder.path.utf8) + [0x2F, 0xE9, 0x74, 0xE9] + Array(".wav".utf8)
        let output: [UInt8] = Array(folder.path.utf8) + [0x2F, 0xE9, 0x74, 0xE9] + Array(".caf".utf8)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(input.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
        close(fd)

        // The shell's printf makes the bytes: the test's own argv would have to be UTF-8.
        let script = "cd \"$1\" && exec \"$0\" convert \"$(printf '\\351t\\351.wav')\" \"$(printf '\\351t\\351.caf')\""
        let result = try TestTools.run("/bin/sh", ["-c", script, TestTools.notiPlay, folder.path])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let converted = try SoundDecoder(file: RegularFile(path: output))
        #expect(converted.description.container == .caf)
        #expect(try converted.readAll() == SoundDecoder(path: source).readAll())

        let missing = "cd \"$1\" && exec \"$0\" convert \"$(printf '\\351-missing.wav')\" out.caf"
        let refused = try TestTools.run("/bin/sh", ["-c", missing, TestTools.notiPlay, folder.path])
        #expect(refused.status == 1)
        #expect(refused.stderr == "noti-play: \\xE9-missing.wav: cannot open: No such file or directory\n")
    }

    /// A newline in a path is shown as `\n`: the message stays one line.
    @Test func aNewlineInAPathStaysInOneLine() throws {
        let source = try ConvertSources.shared().path("stereo16.wav")
        let missing = try TestTools.run(TestTools.notiPlay, ["convert", folder.file("a\nb.wav"), folder.file("out.caf")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "noti-play: \(folder.path)/a\\nb.wav: cannot open: No such file or directory\n")
        let unwritable = try TestTools.run(TestTools.notiPlay, ["convert", source, folder.file("x\ny/out.caf")])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr == "noti-play: \(folder.path)/x\\ny/out.caf: cannot create: No such file or directory\n")
        #expect(try names(in: folder).isEmpty)
    }
}
