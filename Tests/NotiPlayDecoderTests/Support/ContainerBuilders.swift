/// WAV in its three forms. Chunks are appended in the order the test calls them, so "fmt after
/// data" is written exactly that way.
///
/// ```swift
/// let file = WAVBuilder().fmt(channels: 1, rate: 8000, bits: 16).data(int16Samples([1, 2], .little)).bytes
/// ```
struct WAVBuilder {
    enum Form: String { case riff = "RIFF", rifx = "RIFX", rf64 = "RF64" }

    static let pcm: UInt16 = 0x0001
    static let ieeeFloat: UInt16 = 0x0003
    static let aLaw: UInt16 = 0x0006
    static let muLaw: UInt16 = 0x0007
    static let imaADPCM: UInt16 = 0x0011
    static let extensible: UInt16 = 0xFFFE

    let form: Form
    private var chunks: ByteWriter

    init(_ form: Form = .riff) {
        self.form = form
        chunks = ByteWriter(form == .rifx ? .big : .little)
    }

    var order: ByteWriter.Order { chunks.order }
    private var claimedRIFFSize: UInt32?

    /// Writes `size` as the RIFF size instead of the true one (a streamed writer leaves 0 or 0xFFFFFFFF).
    func riffSize(_ size: UInt32) -> Self {
        var copy = self
        copy.claimedRIFFSize = size
        return copy
    }

    /// The whole file. RF64 puts 0xFFFFFFFF in the RIFF size, as its `ds64` carries the real one.
    var bytes: [UInt8] {
        ByteWriter.make(order) { w in
            w.fourCC(form.rawValue)
            w.u32(claimedRIFFSize ?? (form == .rf64 ? 0xFFFF_FFFF : UInt32(4 + chunks.bytes.count)))
            w.fourCC("WAVE")
            w.raw(chunks.bytes)
        }
    }

    func chunk(_ id: String, _ body: [UInt8], claimedSize: UInt32? = nil) -> Self {
        var copy = self
        copy.chunks.chunk(id, claimedSize: claimedSize, body)
        return copy
    }

    /// `fmt `: the 16-byte WAVEFORMAT, then cbSize and `extra` when `extra` is given.
    /// Block align defaults to channels × bytes per sample, what PCM needs.
    func fmt(
        tag: UInt16 = pcm, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16 = 16,
        blockAlign: UInt16? = nil, extra: [UInt8]? = nil
    ) -> Self {
        let align = blockAlign ?? channels * max(bits / 8, 1)
        let body = ByteWriter.make(order) { w in
            w.u16(tag)
            w.u16(channels)
            w.u32(rate)
            w.u32(rate &* UInt32(align))  // bytes per second: informational (wraps for absurd rates)
            w.u16(align)
            w.u16(bits)
            if let extra {
                w.u16(UInt16(extra.count))
                w.raw(extra)
            }
        }
        return chunk("fmt ", body)
    }

    /// `fmt ` for IMA ADPCM: 4 bits, and the samples-per-block extension writers include.
    func imaFmt(channels: UInt16 = 1, rate: UInt32 = 8000, blockAlign: UInt16) -> Self {
        let framesPerBlock = (Int(blockAlign) - 4 * Int(channels)) * 2 / Int(channels) + 1
        return fmt(
            tag: WAVBuilder.imaADPCM, channels: channels, rate: rate, bits: 4, blockAlign: blockAlign,
            extra: ByteWriter.make(order) { $0.u16(UInt16(framesPerBlock)) })
    }

    /// WAVE_FORMAT_EXTENSIBLE: the real tag is the first two bytes of the sub-format GUID
    /// (xxxx0000-0000-0010-8000-00AA00389B71). `cbSize` may be made to lie. The channel mask
    /// defaults to front centre for mono, front left + right otherwise.
    func extensibleFmt(
        subFormat: UInt16, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16, validBits: UInt16? = nil,
        blockAlign: UInt16? = nil, cbSize: UInt16 = 22, channelMask: UInt32? = nil
    ) -> Self {
        let align = blockAlign ?? channels * max(bits / 8, 1)
        let body = ByteWriter.make(order) { w in
            w.u16(WAVBuilder.extensible)
            w.u16(channels)
            w.u32(rate)
            w.u32(rate * UInt32(align))
            w.u16(align)
            w.u16(bits)
            w.u16(cbSize)
            w.u16(validBits ?? bits)
            w.u32(channelMask ?? (channels == 1 ? 0x4 : 0x3))
            w.u16(subFormat)
            w.raw([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        }
        return chunk("fmt ", body)
    }

    func fact(_ frames: UInt32) -> Self {
        chunk("fact", ByteWriter.make(order) { $0.u32(frames) })
    }

    func data(_ body: [UInt8], claimedSize: UInt32? = nil) -> Self {
        chunk("data", body, claimedSize: claimedSize)
    }

    /// RF64's `ds64`: 64-bit RIFF size, data size and sample count, and an empty size table.
    func ds64(riffSize: UInt64 = 0, dataSize: UInt64, sampleCount: UInt64 = 0) -> Self {
        chunk("ds64", ByteWriter.make(.little) { w in
            w.u64(riffSize)
            w.u64(dataSize)
            w.u64(sampleCount)
            w.u32(0)
        })
    }
}

/// AIFF and AIFF-C: big-endian chunks in a FORM.
struct AIFFBuilder {
    let isAIFC: Bool
    private var chunks = ByteWriter(.big)

    init(aifc: Bool = false) { isAIFC = aifc }

    var bytes: [UInt8] {
        ByteWriter.make(.big) { w in
            w.fourCC("FORM")
            w.u32(UInt32(4 + chunks.bytes.count))
            w.fourCC(isAIFC ? "AIFC" : "AIFF")
            w.raw(chunks.bytes)
        }
    }

    func chunk(_ id: String, _ body: [UInt8], claimedSize: UInt32? = nil) -> Self {
        var copy = self
        copy.chunks.chunk(id, claimedSize: claimedSize, body)
        return copy
    }

    /// COMM with a rate any Double can state exactly.
    func comm(channels: Int16 = 1, frames: UInt32, bits: Int16 = 16, rate: Double = 8000, compression: String? = nil) -> Self {
        comm(channels: channels, frames: frames, bits: bits, rateBytes: extended80(rate), compression: compression)
    }

    /// COMM with the rate's ten bytes as given. AIFF-C adds the compression type and its name, a
    /// Pascal string padded to an even length.
    func comm(channels: Int16 = 1, frames: UInt32, bits: Int16 = 16, rateBytes: [UInt8], compression: String? = nil) -> Self {
        let body = ByteWriter.make(.big) { w in
            w.i16(channels)
            w.u32(frames)
            w.i16(bits)
            w.raw(rateBytes)
            if isAIFC {
                w.fourCC(compression ?? "NONE")
                let name = Array("noti-play test".utf8)
                w.u8(UInt8(name.count))
                w.raw(name)
                if (1 + name.count) % 2 == 1 { w.u8(0) }
            }
        }
        return chunk("COMM", body)
    }

    /// SSND: offset (bytes skipped before the first sample), block size, then the samples.
    func ssnd(_ samples: [UInt8], offset: UInt32 = 0, blockSize: UInt32 = 0, claimedSize: UInt32? = nil) -> Self {
        let body = ByteWriter.make(.big) { w in
            w.u32(offset)
            w.u32(blockSize)
            w.raw([UInt8](repeating: 0xEE, count: Int(offset)))  // skipped: never a sample
            w.raw(samples)
        }
        return chunk("SSND", body, claimedSize: claimedSize)
    }
}

/// Core Audio Format: big-endian, 64-bit chunk sizes, no pad bytes.
struct CAFBuilder {
    private var chunks = ByteWriter(.big)

    var bytes: [UInt8] {
        ByteWriter.make(.big) { w in
            w.fourCC("caff")
            w.u16(1)  // version
            w.u16(0)  // flags
            w.raw(chunks.bytes)
        }
    }

    func chunk(_ id: String, _ body: [UInt8], claimedSize: Int64? = nil) -> Self {
        var copy = self
        copy.chunks.fourCC(id)
        copy.chunks.i64(claimedSize ?? Int64(body.count))
        copy.chunks.raw(body)
        return copy
    }

    /// `desc` as given, field by field (32 bytes).
    func desc(
        rate: Double = 8000, format: String, flags: UInt32 = 0, bytesPerPacket: UInt32,
        framesPerPacket: UInt32 = 1, channels: UInt32 = 1, bits: UInt32
    ) -> Self {
        chunk("desc", ByteWriter.make(.big) { w in
            w.f64(rate)
            w.fourCC(format)
            w.u32(flags)
            w.u32(bytesPerPacket)
            w.u32(framesPerPacket)
            w.u32(channels)
            w.u32(bits)
        })
    }

    /// `desc` for packed Linear PCM. Flag bit 0: float; bit 1: little-endian.
    func lpcm(bits: UInt32, channels: UInt32 = 1, float: Bool = false, littleEndian: Bool = false, rate: Double = 8000) -> Self {
        let flags: UInt32 = (float ? 1 : 0) | (littleEndian ? 2 : 0)
        return desc(
            rate: rate, format: "lpcm", flags: flags, bytesPerPacket: bits / 8 * channels, channels: channels, bits: bits)
    }

    /// `desc` for Apple IMA4: 34 bytes and 64 frames per channel per packet.
    func ima4(channels: UInt32 = 1, rate: Double = 8000) -> Self {
        desc(rate: rate, format: "ima4", bytesPerPacket: 34 * channels, framesPerPacket: 64, channels: channels, bits: 0)
    }

    /// `pakt` header: packets, valid frames, priming frames, remainder frames (no packet sizes:
    /// constant-bitrate formats have none).
    func pakt(packets: Int64, validFrames: Int64, priming: Int32, remainder: Int32) -> Self {
        chunk("pakt", ByteWriter.make(.big) { w in
            w.i64(packets)
            w.i64(validFrames)
            w.i32(priming)
            w.i32(remainder)
        })
    }

    /// `chan`: layout tag, channel bitmap, then the channel descriptions (label, flags, three
    /// Float32 coordinates each). `descriptionCount` may be made to lie.
    func chan(
        tag: UInt32, bitmap: UInt32 = 0, labels: [UInt32] = [], descriptionCount: UInt32? = nil,
        coordinates: Float = 0, claimedSize: Int64? = nil
    ) -> Self {
        let body = Self.chanBody(tag: tag, bitmap: bitmap, labels: labels, descriptionCount: descriptionCount, coordinates: coordinates)
        return chunk("chan", body, claimedSize: claimedSize)
    }

    static func chanBody(
        tag: UInt32, bitmap: UInt32 = 0, labels: [UInt32] = [], descriptionCount: UInt32? = nil, coordinates: Float = 0
    ) -> [UInt8] {
        ByteWriter.make(.big) { w in
            w.u32(tag)
            w.u32(bitmap)
            w.u32(descriptionCount ?? UInt32(labels.count))
            for label in labels {
                w.u32(label)
                w.u32(0)  // flags
                for _ in 0..<3 { w.f32(coordinates) }
            }
        }
    }

    /// `data`: a 4-byte edit count, then the audio. `claimedSize` -1 means "to the end of the file".
    func data(_ audio: [UInt8], editCount: UInt32 = 0, claimedSize: Int64? = nil) -> Self {
        chunk("data", ByteWriter.make(.big) { $0.u32(editCount) } + audio, claimedSize: claimedSize)
    }
}
