import Benchmark
import CSndFileBench
import NotiPlayDecoder
import NotiPlayEncoder

#if canImport(Glibc)
import Glibc
#endif

// Decoding a 30-second stereo 44.1 kHz sound from memory to interleaved Float32, for every
// container × encoding noti-play reads, by noti-play and by libsndfile in the same run, from the
// same bytes. Opening is not measured: each iteration rewinds an open decoder and reads the
// whole sound through a 4096-frame buffer, as a player does.
//
// Names are "<decoder> <container> <encoding>", e.g. "noti-play AIFC ima4" and
// "libsndfile AIFC ima4"; scripts/benchmarks/decode-report.py pairs them.

let seconds = 30
let sampleRate = 44100
let channels = 2
let framesPerRead = 4096
let totalSamples = seconds * sampleRate * channels

/// Samples per second, for the table: the framework's own throughput counts whole decodes.
let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)

/// A sound with some life in it (two tones, a sweep and noise, different per channel), so that
/// IMA's step sizes move as they do on real sounds rather than sitting on silence.
func makeSignal() -> [Float] {
    var samples = [Float](repeating: 0, count: totalSamples)
    var noise: UInt32 = 0x1234_5678
    for frame in 0..<(seconds * sampleRate) {
        let t = Float(frame) / Float(sampleRate)
        for channel in 0..<channels {
            noise = noise &* 1_664_525 &+ 1_013_904_223  // a linear congruential generator
            let white = Float(Int32(bitPattern: noise)) / Float(Int32.max)
            let tone = 0.35 * sin(2 * .pi * (440 + 110 * Float(channel)) * t)
                + 0.2 * sin(2 * .pi * (200 + 40 * t) * t)
            samples[frame * channels + channel] = tone * (0.6 + 0.4 * sin(.pi * t)) + 0.05 * white
        }
    }
    return samples
}

struct Case {
    let container: Container
    let containerName: String
    let encodingName: String
    let encoding: Encoding
}

func cases() -> [Case] {
    let containers: [(Container, String, Bool)] = [
        (.wave, "WAV", false), (.aiff, "AIFF", true), (.aifc, "AIFC", true), (.caf, "CAF", true),
    ]
    var result: [Case] = []
    for (container, name, bigEndian) in containers {
        let encodings: [(String, Encoding)] = [
            ("PCM16", .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: bigEndian))),
            ("PCM24", .linearPCM(.init(bitsPerSample: 24, isFloat: false, isBigEndian: bigEndian))),
            ("float", .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: bigEndian))),
            ("ulaw", .muLaw),
            ("alaw", .aLaw),
            ("IMA", .imaADPCM),
            ("ima4", .appleIMA4),
        ]
        for (encodingName, encoding) in encodings where SoundFormat.refusal(encoding, in: container) == nil {
            result.append(Case(container: container, containerName: name, encodingName: encodingName, encoding: encoding))
        }
    }
    return result
}

// MARK: libsndfile reading from memory

/// The bytes and read position libsndfile's virtual I/O callbacks work on.
final class MemoryFile {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

private func memoryFile(_ user: UnsafeMutableRawPointer?) -> MemoryFile {
    Unmanaged<MemoryFile>.fromOpaque(user!).takeUnretainedValue()
}

/// sf_open_virtual's callbacks over a MemoryFile, so libsndfile decodes the very bytes
/// noti-play does, with no file system in either path.
nonisolated(unsafe) var memoryIO = SF_VIRTUAL_IO(
    get_filelen: { user in sf_count_t(memoryFile(user).bytes.count) },
    seek: { offset, whence, user in
        let file = memoryFile(user)
        let base = whence == SEEK_CUR ? file.position : whence == SEEK_END ? file.bytes.count : 0
        file.position = min(max(base + Int(offset), 0), file.bytes.count)
        return sf_count_t(file.position)
    },
    read: { destination, count, user in
        let file = memoryFile(user)
        let n = min(Int(count), file.bytes.count - file.position)
        file.bytes.withUnsafeBytes { source in
            destination!.copyMemory(from: source.baseAddress! + file.position, byteCount: n)
        }
        file.position += n
        return sf_count_t(n)
    },
    write: { _, _, _ in 0 },
    tell: { user in sf_count_t(memoryFile(user).position) }
)

/// An open libsndfile handle on bytes in memory, or nil where libsndfile cannot read them.
final class SndFileReader {
    let file: MemoryFile
    let handle: OpaquePointer
    let channels: Int

    init?(_ bytes: [UInt8]) {
        file = MemoryFile(bytes)
        var info = SF_INFO()
        guard let handle = sf_open_virtual(&memoryIO, Int32(SFM_READ), &info, Unmanaged.passUnretained(file).toOpaque()) else {
            return nil
        }
        self.handle = handle
        channels = Int(info.channels)
    }

    deinit { sf_close(handle) }

    /// Reads the whole sound from its start; returns the samples read.
    func decodeAll(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        sf_seek(handle, 0, SEEK_SET)
        var total = 0
        while case let n = Int(sf_readf_float(handle, buffer.baseAddress, sf_count_t(buffer.count / channels))), n > 0 {
            total += n * channels
        }
        return total
    }
}

// MARK: The benchmarks

/// Each benchmark's sound, encoded in its setup hook: the harness runs every benchmark in a
/// process of its own, so encoding all 24 sounds up front would repeat that work 40 times.
final class Fixture {
    let item: Case
    let label: String
    var bytes: [UInt8] = []
    var decoder: SoundDecoder?
    var reader: SndFileReader?
    /// Samples a whole decode yields: AIFC ima4 states whole packets, so its last one is padded.
    var expectedSamples = 0

    init(_ item: Case) {
        self.item = item
        label = "\(item.containerName) \(item.encodingName)"
    }

    func prepare() throws {
        guard bytes.isEmpty else { return }
        let format = SoundFormat(container: item.container, encoding: item.encoding, sampleRate: Double(sampleRate), channelCount: channels)
        bytes = try SoundWriter.encode(signal, format: format)
        let decoder = try SoundDecoder(source: MemoryByteSource(bytes))
        expectedSamples = decoder.description.frameCount * channels
        self.decoder = decoder
        reader = SndFileReader(bytes)
    }
}

let signal = makeSignal()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, samplesPerSecond],
        timeUnits: .microseconds,
        warmupIterations: 3,
        // Short runs: the machine is shared. Each iteration decodes 2.6 million samples.
        maxDuration: .milliseconds(400),
        maxIterations: 40
    )

    let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: framesPerRead * channels)
    buffer.initialize(repeating: 0)

    for item in cases() {
        let fixture = Fixture(item)
        Benchmark("noti-play \(fixture.label)", configuration: .init(setup: { try fixture.prepare() })) { benchmark in
            let decoder = fixture.decoder!
            for _ in benchmark.scaledIterations {
                decoder.rewind()
                var samples = 0
                let start = ContinuousClock.now
                while case let frames = try decoder.read(into: buffer), frames > 0 {
                    samples += frames * channels
                }
                let elapsed = ContinuousClock.now - start
                precondition(samples == fixture.expectedSamples, "\(fixture.label): \(samples) samples")
                blackHole(buffer[0])
                benchmark.measurement(samplesPerSecond, rate(samples, elapsed))
            }
        }

        // libsndfile cannot open IMA4 in CAF; the report compares that row with AIFC ima4.
        if item.container == .caf && item.encoding == .appleIMA4 { continue }
        Benchmark("libsndfile \(fixture.label)", configuration: .init(setup: { try fixture.prepare() })) { benchmark in
            guard let reader = fixture.reader else { fatalError("libsndfile cannot open \(fixture.label)") }
            for _ in benchmark.scaledIterations {
                let start = ContinuousClock.now
                let samples = reader.decodeAll(into: buffer)
                let elapsed = ContinuousClock.now - start
                precondition(samples >= totalSamples, "\(fixture.label): libsndfile read \(samples) samples")
                blackHole(buffer[0])
                benchmark.measurement(samplesPerSecond, rate(samples, elapsed))
            }
        }
    }
}

func rate(_ samples: Int, _ elapsed: Duration) -> Int {
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return Int(Double(samples) / max(nanoseconds, 1) * 1e9)
}
