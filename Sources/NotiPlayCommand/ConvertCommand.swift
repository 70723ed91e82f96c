#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import NotiPlay
import NotiPlayDecoder
import NotiPlayEncoder
import NotiPlayOutput
import NotiPlayResampler

/// `noti-play convert IN OUT [-f caff|WAVE|AIFF|AIFC] [-d FORMAT[@RATE]]`: afconvert's
/// container and data-format names, decoding and encoding a chunk at a time.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a sound to another container or encoding, as afconvert does.",
        discussion: """
            The container follows OUT's extension (.caf, .wav, .aif/.aiff, .aifc) unless -f names it. \
            Without -d the source's encoding is kept where the container holds it; otherwise the same \
            PCM in the container's byte order, or 16-bit PCM. `-d ima4` writes IMA ADPCM blocks \
            (format 0x0011) in WAVE and Apple IMA4 packets in AIFC and CAF. `-d FORMAT@RATE` resamples \
            (aliasing and images below -120 dB, flat to 0.9 x Nyquist; -r chooses a cheaper filter) \
            between whole-number rates from 1 to 1536000 Hz, at most 32 times down or 64 times up; \
            at the source's own rate the samples are kept bit for bit (non-finite floats become 0, as \
            in every conversion). Exits 0 once OUT is \
            written, 1 when IN cannot be read or OUT cannot be written (OUT is then as it was), 64 for \
            a usage error (an unknown -f, -d or -r, an OUT name that names no container, a container that \
            cannot hold -d's encoding), 128+N when signal N interrupted it.
            """
    )

    @Argument(help: "The sound to read: WAV, AIFF/AIFC or CAF.", completion: .file())
    var input: String

    @Argument(help: "The file to write; replaced only once the conversion succeeds.", completion: .file())
    var output: String

    @Option(name: [.customShort("f"), .customLong("file")], help: "Container: caff, WAVE, AIFF or AIFC.", completion: .list(["caff", "WAVE", "AIFF", "AIFC"]))
    var fileFormat: String?

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: "Data format[@rate]: LEI16 BEI16 LEI24 BEI24 LEI32 BEI32 LEF32 BEF32 LEF64 BEF64 I8 UI8 ima4 ulaw alaw.",
        completion: .list(["LEI16", "BEI16", "LEI24", "BEI24", "LEI32", "BEI32", "LEF32", "BEF32", "LEF64", "BEF64", "I8", "UI8", "ima4", "ulaw", "alaw"]))
    var dataFormat: String?

    @Option(
        name: [.customShort("r"), .customLong("src-quality")], parsing: .unconditional,
        help: "Sample rate converter quality, 0-127 as afconvert takes it: 96-127 high (the default), 64-95 medium, 0-63 low.")
    var sourceQuality: Int?

    func run() throws {
        // Before the output's temporary file exists, so no interruption can leave it behind.
        let signals = HeldSignals()
        do throws(ConvertFailure) {
            try convert(checkingFor: signals)
        } catch {
            Output.standardError("noti-play: " + (error.path.map { "\($0): " } ?? "") + error.message)
            throw ExitCode(error.status)
        }
    }

    /// One line for stderr; `path` names the file it concerns, if any.
    struct ConvertFailure: Error {
        var path: String?
        var message: String
        var status = ExitCode.failure.rawValue

        /// A signal ended the conversion: the shell's 128 + signal, as if it had killed us.
        /// The options cannot work whatever the input (an unknown -f or -d, an output name that
        /// names no container, a container that cannot hold -d's encoding): EX_USAGE, 64, as
        /// ArgumentParser's own usage errors. What depends on the files is 1.
        static func usage(_ message: String, path: String? = nil) -> Self {
            .init(path: path, message: message, status: ExitCode.validationFailure.rawValue)
        }

        static func interrupted(by signal: Int32, output: String) -> Self {
            .init(path: output, message: "not written: interrupted by \(HeldSignals.name(signal))", status: 128 + signal)
        }
    }

    private func convert(checkingFor signals: HeldSignals) throws(ConvertFailure) {
        // The paths' bytes as typed (a name need not be UTF-8); shown escaped.
        let inputPath = RawArguments.bytes(of: input)
        let outputPath = RawArguments.bytes(of: output)
        let inputName = PrintableText.path(inputPath)
        let outputName = PrintableText.path(outputPath)
        let container = try Self.container(fileFormat: fileFormat, output: output, shownAs: outputName)
        let requested = try dataFormat.map { (text) throws(ConvertFailure) in try Self.dataFormat(text) }
        if let asked = requested?.encoding, let refusal = SoundFormat.refusal(Self.flavour(of: asked, in: container), in: container) {
            throw .usage(refusal, path: outputName)
        }
        let design = try Self.design(forQuality: sourceQuality)

        let (decoder, sourceEncoding) = try Self.open(inputPath, shownAs: inputName)

        let resampler = try Self.resampler(
            from: decoder.sampleRate, to: requested?.rate, channelCount: decoder.channelCount, design: design, input: inputName)
        var encoding = requested?.encoding
            ?? sourceEncoding.map { SoundFormat.closestEncoding(to: $0, in: container) }
            ?? SoundFormat.closestEncoding(to: .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false)), in: container)
        encoding = Self.flavour(of: encoding, in: container)
        let format = SoundFormat(
            container: container, encoding: encoding, sampleRate: resampler.map { Double($0.outputRate) } ?? decoder.sampleRate,
            channelCount: decoder.channelCount)

        let writer: SoundWriter
        do { writer = try SoundWriter(path: outputPath, format: format) } catch { throw .init(path: outputName, message: error.message) }
        // The writer removes its temporary file if it is released unfinished.
        let chunkFrames = 4096
        var frames = [Float](repeating: 0, count: chunkFrames * decoder.channelCount)
        var resampled = [Float](repeating: 0, count: (resampler?.maximumOutputFrames(forInputFrames: chunkFrames) ?? 0) * decoder.channelCount)
        /// Writes decoded samples, through the resampler when the rate changes (nil input: its tail).
        func write(_ samples: UnsafeBufferPointer<Float>?) throws(EncodingError) {
            guard let resampler else {
                if let samples { try writer.write(samples) }
                return
            }
            try resampled.withUnsafeMutableBufferPointer { (out) throws(EncodingError) in
                let count = if let samples { resampler.process(samples, into: out) } else { resampler.flush(into: out) }
                try writer.write(UnsafeBufferPointer(rebasing: out[..<(count * decoder.channelCount)]))
            }
        }
        while true {
            if let signal = signals.pending() {
                writer.cancel()
                throw .interrupted(by: signal, output: outputName)
            }
            let result = frames.withUnsafeMutableBufferPointer { buffer -> Result<Int, ConvertFailure> in
                let count: Int
                do { count = try decoder.read(into: buffer) } catch { return .failure(.init(path: inputName, message: error.message)) }
                do throws(EncodingError) {
                    try write(UnsafeBufferPointer(rebasing: buffer[..<(count * decoder.channelCount)]))
                } catch {
                    return .failure(.init(path: outputName, message: error.message))
                }
                return .success(count)
            }
            if try result.get() == 0 { break }
        }
        do { try write(nil) } catch { throw .init(path: outputName, message: error.message) }
        // A signal from here on finds the conversion complete: finish is one packet, the
        // header, fsync and the rename.
        do { try writer.finish() } catch { throw .init(path: outputName, message: error.message) }
    }

    /// The input, decoded in Swift, or — for a format only libsndfile reads (FLAC, Ogg, AU…) —
    /// by libsndfile, as `noti-play FILE` would play it. The source's encoding, where known.
    static func open(_ path: [UInt8], shownAs name: String) throws(ConvertFailure) -> (any FrameSource, Encoding?) {
        let file: RegularFile
        do { file = try RegularFile(path: path) } catch { throw .init(path: name, message: error.message) }
        do {
            let decoder = try SoundDecoder(file: file)
            return (decoder, decoder.description.encoding)
        } catch where error.kind == .unknownContainer || error.kind == .unsupported {
            do throws(NotificationSoundError) {
                return (try SoundSources.open(SoundFile(file, formats: .anyReadable)), nil)
            } catch {
                throw .init(path: nil, message: error.description)
            }
        } catch {
            throw .init(path: name, message: error.message)
        }
    }

    /// afconvert's `ima4` means the container's own IMA ADPCM flavour.
    static func flavour(of encoding: Encoding, in container: Container) -> Encoding {
        if encoding == .appleIMA4 && container == .wave { return .imaADPCM }
        if encoding == .imaADPCM && container != .wave { return .appleIMA4 }
        return encoding
    }

    /// `-r` maps afconvert's 0-127 (AudioConverter's Min 0, Low 32, Medium 64, High 96, Max 127)
    /// onto our three designs; afconvert's default is Max, ours high.
    static func design(forQuality quality: Int?) throws(ConvertFailure) -> Resampler.Quality {
        switch quality ?? 127 {
        case 96...127: .high
        case 64...95: .medium
        case 0...63: .low
        case let value: throw .usage("-r \(value) is not a converter quality; use 0 to 127")
        }
    }

    /// The converter for `-d FORMAT@RATE`, or nil when the rate stays: then the samples are
    /// copied bit for bit (as `Resampler.conversion` rules for every caller; checked here first
    /// only because a source may have a fractional rate, which the resampler does not take).
    static func resampler(
        from sourceRate: Double, to rate: Double?, channelCount: Int, design: Resampler.Quality, input: String
    ) throws(ConvertFailure) -> Resampler? {
        guard let rate, rate != sourceRate else { return nil }
        guard let from = Int(exactly: sourceRate), let to = Int(exactly: rate) else {
            throw .init(path: nil, message: "cannot resample \(input) from \(Self.rateText(sourceRate)) Hz to \(Self.rateText(rate)) Hz: only whole-number rates")
        }
        do { return try Resampler.conversion(from: from, to: to, channelCount: channelCount, quality: design) } catch {
            throw .init(path: nil, message: "cannot resample \(input): \(error.description)")
        }
    }

    static func container(fileFormat: String?, output: String, shownAs outputName: String) throws(ConvertFailure) -> Container {
        if let fileFormat {
            switch fileFormat.lowercased() {
            case "caff", "caf": return .caf
            case "wave", "wav": return .wave
            case "aiff", "aif": return .aiff
            case "aifc": return .aifc
            default: throw .usage("unknown file format '\(fileFormat)' for -f; use caff, WAVE, AIFF or AIFC")
            }
        }
        let name = output.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? name.split(separator: ".").last!.lowercased() : ""
        switch ext {
        case "caf": return .caf
        case "wav", "wave": return .wave
        case "aif", "aiff": return .aiff
        case "aifc": return .aifc
        default:
            throw .usage("cannot tell the container from the extension '\(ext)'; name it with -f caff, WAVE, AIFF or AIFC", path: outputName)
        }
    }

    /// afconvert's data format names, with an optional `@rate`.
    static func dataFormat(_ text: String) throws(ConvertFailure) -> (encoding: Encoding, rate: Double?) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        var rate: Double?
        if parts.count == 2 {
            guard let value = Double(parts[1]), value.isFinite, value > 0 else {
                throw .usage("'\(parts[1])' in -d \(text) is not a sample rate")
            }
            guard value >= 1, value <= StreamDescription.maximumSampleRate else {
                throw .usage("-d \(text): the rate must be from 1 to \(Int(StreamDescription.maximumSampleRate)) Hz")
            }
            rate = value
        }
        let pcm: [String: (bits: Int, float: Bool, big: Bool)] = [
            "LEI16": (16, false, false), "BEI16": (16, false, true), "LEI24": (24, false, false),
            "BEI24": (24, false, true), "LEI32": (32, false, false), "BEI32": (32, false, true),
            "LEF32": (32, true, false), "BEF32": (32, true, true), "LEF64": (64, true, false),
            "BEF64": (64, true, true),
        ]
        let encoding: Encoding
        if let p = pcm[name.uppercased()] {
            encoding = .linearPCM(.init(bitsPerSample: p.bits, isFloat: p.float, isBigEndian: p.big))
        } else {
            switch name.lowercased() {
            case "i8": encoding = .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: true, isSigned: true))
            case "ui8": encoding = .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: false, isSigned: false))
            case "ima4", "ima-adpcm": encoding = .appleIMA4
            case "ulaw": encoding = .muLaw
            case "alaw": encoding = .aLaw
            default:
                throw .usage("unknown data format '\(name)' for -d; use LEI16, BEI16, LEI24, BEI24, LEI32, BEI32, LEF32, BEF32, LEF64, BEF64, I8, UI8, ima4, ulaw or alaw")
            }
        }
        return (encoding, rate)
    }

    static func rateText(_ rate: Double) -> String { rate.rateText }
}
