import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#endif

/// The race of issue 23: a sound's header was read, then the file changed, then it was read
/// again. Here the decoder reads a real file through ``FileByteSource`` (pread on the
/// descriptor it opened), and just before its `swapBefore`th read the file's bytes are replaced
/// by `after` (written through another descriptor, and cut or grown to its length): inside the
/// header's parse, between the parse and the samples, or between two chunks of samples.
///
/// Whatever the new bytes say, decoding must not crash, read outside a buffer (ASan), allocate
/// beyond libFuzzer's limit, or deliver more frames than the description the parse returned
/// promised, or a sample out of range. An error is a fine outcome.
public func decodeWhileTheFileChanges(before: [UInt8], after: [UInt8], swapBefore: Int) {
    let file = RaceFile.shared
    file.replace(with: before)
    guard let opened = try? RegularFile(path: file.path) else { preconditionFailure("cannot open \(file.path)") }
    let source = ChangingSource(FileByteSource(file: opened), swapBefore: swapBefore) { file.replace(with: after) }
    let decoder: SoundDecoder
    do {
        decoder = try SoundDecoder(source: source)
    } catch {
        precondition(!error.message.contains("\n"), "a message of more than one line: \(error.message)")
        return
    }
    let d = decoder.description
    precondition(d.channelCount >= 1 && d.frameCount >= 0 && d.bytesPerPacket >= 1 && d.framesPerPacket >= 1)
    precondition(d.dataOffset >= 0 && d.dataOffset + d.dataByteCount <= before.count)

    var floats = [Float](repeating: 0, count: 1000 * d.channelCount)
    var shorts = [Int16](repeating: 0, count: 1000 * d.channelCount)
    let sizes = [1, 7, 63, 65, 1000]
    var total = 0
    for turn in 0... {
        let frames = sizes[turn % sizes.count]
        let samples = frames * d.channelCount
        let n: Int
        do {
            if turn % 2 == 0 {
                n = try floats.withUnsafeMutableBufferPointer { all in
                    try decoder.read(into: UnsafeMutableBufferPointer(rebasing: all[..<samples]))
                }
                for value in floats[..<(n * d.channelCount)] {
                    precondition(value.isFinite, "non-finite sample \(value) from \(d.encoding)")
                    precondition(isFloatPCM(d.encoding) || (value >= -1 && value <= 1), "sample \(value) out of range for \(d.encoding)")
                }
            } else {
                n = try shorts.withUnsafeMutableBufferPointer { all in
                    try decoder.read(into: UnsafeMutableBufferPointer(rebasing: all[..<samples]))
                }
            }
        } catch {
            // The file was cut under the reader, or its samples no longer fit their layout.
            precondition(!"\(error)".contains("\n"), "a message of more than one line: \(error)")
            break
        }
        precondition(n <= frames)
        if n == 0 { break }
        total += n
        precondition(total <= d.frameCount, "\(total) frames decoded; the description promised \(d.frameCount)")
    }
    decoder.rewind()
    if let again = try? decoder.readAll() {
        precondition(again.count <= d.frameCount * d.channelCount, "readAll gave \(again.count) samples of \(d.frameCount * d.channelCount)")
    }
}

/// The fuzz input of the race target: the first bytes say when and how the file changes, the
/// rest is the file as it is first read.
///
///     byte 0       the read before which the file changes (0...31)
///     bytes 1-2    where the new bytes go (little-endian)
///     bytes 3-4    the file's new length (little-endian); 0xFFFF keeps it
///     byte 5       how many new bytes follow (n)
///     bytes 6..<6+n  the new bytes
///     the rest     the file
public struct RaceInput {
    public var swapBefore: Int
    public var before: [UInt8]
    public var after: [UInt8]

    public init?(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 6 else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: size)
        let patchLength = Int(bytes[5])
        guard size >= 6 + patchLength else { return nil }
        swapBefore = Int(bytes[0]) % 32
        let at = Int(bytes[1]) | Int(bytes[2]) << 8
        let length = Int(bytes[3]) | Int(bytes[4]) << 8
        before = Array(bytes[(6 + patchLength)...])
        after = before
        let patch = bytes[6..<(6 + patchLength)]
        if after.count < at + patch.count { after += [UInt8](repeating: 0, count: at + patch.count - after.count) }
        after.replaceSubrange(at..<(at + patch.count), with: patch)
        if length != 0xFFFF {
            after = length <= after.count ? Array(after[..<length]) : after + [UInt8](repeating: 0, count: length - after.count)
        }
    }
}

/// Forwards reads to `inner`, and runs `swap` once, just before the `swapBefore`th read.
final class ChangingSource: ByteSource {
    let inner: FileByteSource
    let swapBefore: Int
    let swap: () -> Void
    var reads = 0

    init(_ inner: FileByteSource, swapBefore: Int, swap: @escaping () -> Void) {
        self.inner = inner
        self.swapBefore = swapBefore
        self.swap = swap
    }

    var byteCount: Int { inner.byteCount }

    func withBytes<R>(at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(DecodingError) -> R {
        if reads == swapBefore { swap() }
        reads += 1
        return try inner.withBytes(at: offset, count: count, body)
    }
}

/// One file in /dev/shm (memory, not the disk), made once per process and rewritten per input.
/// Its name is removed at once: it is opened again through /proc/self/fd, which reaches the
/// file itself, so nothing is left behind however the fuzzer ends.
final class RaceFile: @unchecked Sendable {  // used by libFuzzer's one thread
    static let shared = RaceFile()
    let path: String
    private let writer: Int32

    private init() {
        var template = Array("/dev/shm/noti-play-race-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { fatalError("mkstemp failed") }
        unlink(String(cString: template))
        writer = fd
        path = "/proc/self/fd/\(fd)"
    }

    /// The file's bytes become `bytes`, its length `bytes.count`: what another process writing
    /// and truncating it would leave for the next pread.
    func replace(with bytes: [UInt8]) {
        let written = bytes.withUnsafeBytes { pwrite(writer, $0.baseAddress, $0.count, 0) }
        precondition(written == bytes.count && ftruncate(writer, off_t(bytes.count)) == 0, "cannot rewrite the race file")
    }
}
