import FuzzSupport
import NotiPlayDecoder
import NotiPlayEncoder

// libFuzzer entry point: what `noti-play convert` does, from arbitrary samples. The first byte
// picks the written form and the channel count; the rest are 16-bit samples. The encoder writes
// the file in memory, the decoder reads it back: it must parse, hold every frame written, and
// give back exactly the samples of lossless forms.
// In an enum: libFuzzer's main runs instead of this file's top-level code, which never runs,
// so a top-level constant would never be initialized; a static one is, on first use.
enum Forms {
    static let all: [(Container, Encoding)] = [
    (.wave, .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false))),
    (.wave, .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: false, isSigned: false))),
    (.wave, .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: false))),
    (.wave, .imaADPCM), (.wave, .muLaw), (.wave, .aLaw),
    (.aiff, .linearPCM(.init(bitsPerSample: 24, isFloat: false, isBigEndian: true))),
    (.aifc, .appleIMA4), (.aifc, .aLaw), (.aifc, .linearPCM(.init(bitsPerSample: 64, isFloat: true, isBigEndian: true))),
    (.caf, .appleIMA4), (.caf, .muLaw), (.caf, .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false))),
    (.caf, .linearPCM(.init(bitsPerSample: 32, isFloat: false, isBigEndian: true))),
    ]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let (container, encoding) = Forms.all[Int(data[0]) % Forms.all.count]
    let channels = Int(data[0]) / Forms.all.count % 3 + 1
    let sampleCount = (size - 1) / 2 / channels * channels
    var samples = [Float](repeating: 0, count: sampleCount)
    for i in 0..<sampleCount {
        let value = Int16(bitPattern: UInt16(data[1 + 2 * i]) | UInt16(data[2 + 2 * i]) << 8)
        samples[i] = Float(value) / 32768
    }
    let format = SoundFormat(container: container, encoding: encoding, sampleRate: 22050, channelCount: channels)
    let file: [UInt8]
    do {
        file = try SoundWriter.encode(samples, format: format)
    } catch {
        preconditionFailure("cannot encode \(sampleCount) samples as \(encoding) in \(container): \(error)")
    }
    do {
        let decoder = try SoundDecoder(bytes: file)
        precondition(decoder.description.channelCount == channels)
        // AIFF-C ima4 counts whole 64-frame packets (COMM has no finer length, as with
        // afconvert); every other form states the exact length (fact, pakt, or the data size).
        let frames = sampleCount / channels
        let expected = container == .aifc && encoding == .appleIMA4 ? (frames + 63) / 64 * 64 : frames
        precondition(decoder.description.frameCount == expected,
                     "\(decoder.description.frameCount) frames read back, \(frames) written")
        let decoded = try decoder.readAll()
        precondition(decoded.count == expected * channels)
        if case .linearPCM(let pcm) = encoding, pcm.bitsPerSample >= 16 {
            precondition(decoded == samples, "lossless \(encoding) changed samples")
        }
        _ = decodeEverything(file)
    } catch {
        preconditionFailure("cannot read back \(encoding) in \(container): \(error)")
    }
    return 0
}
