// play() to the first frame of the sound written, on an engine that is already open and running
// (drainWhenIdle: false, as a daemon keeps it): the library's own start latency.
//
// The PCM is ALSA's `file` plugin over the null device, writing into a FIFO that a thread here
// reads. The engine writes silence while idle, so the first non-zero byte after play() is the
// sound's first frame; its arrival time minus the time just before play() is the figure.
// The null device has no clock, so the engine writes as fast as the FIFO is drained: the FIFO
// never holds more than the reader has not yet looked at, a few microseconds' worth.
//
// Usage: swift run -c release WarmPlayLatency [plays]   (prints each play and the median)
import NotiPlay
import NotiPlayDecoder
import NotiPlayEncoder
import NotiPlayOutput
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

let plays = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 21 : 21

// The FIFO and an ALSA configuration that makes it the default PCM. Set before ALSA reads its
// configuration, that is before the engine opens the device.
var folderTemplate = Array("/tmp/warm-play-XXXXXX".utf8CString)
guard let folderPointer = mkdtemp(&folderTemplate) else { fatalError("mkdtemp failed") }
let folder = String(cString: folderPointer)
let fifo = folder + "/pcm.fifo"
guard mkfifo(fifo, 0o600) == 0 else { fatalError("mkfifo failed") }
let config = folder + "/asound.conf"
let configText = "pcm.!default { type file slave.pcm { type null } file \"\(fifo)\" format \"raw\" }\n"
let configFile = fopen(config, "w")!
fputs(configText, configFile)
fclose(configFile)
setenv("ALSA_CONFIG_PATH", config, 1)

// O_RDWR: opening a FIFO this way never waits for a writer (Linux), so the reader is ready first.
let reader = open(fifo, O_RDWR)
guard reader >= 0 else { fatalError("cannot open the FIFO") }

/// Non-zero while a play is being timed: set just before play(), cleared by the reader.
let armed = Atomic<Bool>(false)
let arrival = Atomic<UInt64>(0)
let stopReading = Atomic<Bool>(false)

final class ReaderThread: @unchecked Sendable {
    var thread = pthread_t()
    func start() {
        pthread_create(&thread, nil, { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
            while !stopReading.load(ordering: .relaxed) {
                let n = read(reader, buffer.baseAddress, buffer.count)
                if n <= 0 { continue }
                if armed.load(ordering: .acquiring) && buffer[0..<n].contains(where: { $0 != 0 }) {
                    arrival.store(monotonicNanoseconds(), ordering: .releasing)
                    armed.store(false, ordering: .relaxed)
                }
            }
            buffer.deallocate()
            return nil
        }, nil)
    }
}
let readerThread = ReaderThread()
readerThread.start()

// A 0.1 s click whose very first sample is loud (a cosine), so its first frame is non-zero.
let rate = 44100
let click = (0..<(rate / 10)).flatMap { frame -> [Float] in
    let value = Float(0.5 * cos(2 * Double.pi * 1000 * Double(frame) / Double(rate)))
    return [value, value]
}
let bytes = try SoundWriter.encode(click, format: SoundFormat(
    container: .wave, encoding: .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false)),
    sampleRate: Double(rate), channelCount: 2))

// noti-play's own defaults for a short sound: 5 ms periods, 4 per buffer.
let engine = try PlaybackEngine(
    request: PCMRequest(sampleRate: rate, channelCount: 2, periodMicroseconds: 5000, periodsPerBuffer: 4),
    voiceCapacity: 4, drainWhenIdle: false)
print("device: \(engine.format.sampleFormat) \(engine.format.sampleRate) Hz, period \(engine.format.periodFrames) frames, buffer \(engine.format.bufferFrames)")

let finished = Atomic<Int>(0)
func playOnce(timed: Bool) throws -> Double? {
    let decoder = try SoundDecoder(source: MemoryByteSource(bytes))  // opened before the clock starts
    let before = finished.load(ordering: .acquiring)
    arrival.store(0, ordering: .relaxed)
    armed.store(timed, ordering: .releasing)
    let start = monotonicNanoseconds()
    try engine.play(decoder) { _ in finished.add(1, ordering: .releasing) }
    while finished.load(ordering: .acquiring) == before { usleep(1000) }
    var pause = timespec(tv_sec: 0, tv_nsec: 30_000_000)  // idle again: the engine writes silence
    nanosleep(&pause, nil)
    guard timed else { return nil }
    let end = arrival.load(ordering: .acquiring)
    return end == 0 ? nil : Double(end - start) / 1e6
}

_ = try playOnce(timed: false)  // starts the engine's threads: from here on it is warm
var latencies: [Double] = []
for index in 0..<plays {
    guard let milliseconds = try playOnce(timed: true) else { print("play \(index + 1): no sound seen"); continue }
    latencies.append(milliseconds)
}
engine.close()
stopReading.store(true, ordering: .relaxed)
latencies.sort()
print("play() to first frame written, warm engine: " + latencies.map { String(Int(($0 * 1000).rounded())) + " µs" }.joined(separator: ", "))
if !latencies.isEmpty {
    let median = latencies[latencies.count / 2]
    print("median of \(latencies.count): \(String(Int((median * 1000).rounded()))) µs")
}
unlink(fifo)
unlink(config)
rmdir(folder)
exit(0)
