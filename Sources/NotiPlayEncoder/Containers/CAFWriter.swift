import NotiPlayDecoder

/// Core Audio Format, big-endian with 64-bit chunk sizes: `desc`, `pakt` for ima4, then `data`
/// (edit count 0).
///
/// For ima4 the packet table header gives the true length: valid frames, no priming, and the
/// padding frames of the last packet as remainder. A constant bit rate format lists no packets.
enum CAFWriter: ContainerWriter {
    static let padsOddData = false

    static func fits(_ info: HeaderInfo, headerSize: Int) -> Bool { true }

    static func refusal(_ encoding: Encoding) -> String? {
        switch encoding {
        case .linearPCM(let f) where f.bitsPerSample == 8:
            return f.isSigned ? nil : "CAF 8-bit PCM is signed; use -d I8"
        case .linearPCM, .muLaw, .aLaw, .appleIMA4: return nil
        case .imaADPCM: return "CAF holds Apple ima4 packets, not WAV IMA ADPCM blocks"
        }
    }

    static func header(_ info: HeaderInfo) -> [UInt8] {
        let format = info.format
        var h = HeaderBytes()
        h.fourCC("caff")
        h.uint16(1, bigEndian: true)  // version
        h.uint16(0, bigEndian: true)  // flags

        h.fourCC("desc")
        h.uint64(32, bigEndian: true)
        h.uint64(format.sampleRate.bitPattern, bigEndian: true)
        var flags = 0
        var bits = 0
        switch format.encoding {
        case .linearPCM(let f):
            h.fourCC("lpcm")
            flags = (f.isFloat ? 1 : 0) | (f.isBigEndian || f.bitsPerSample == 8 ? 0 : 2)
            bits = f.bitsPerSample
        case .muLaw: h.fourCC("ulaw"); bits = 8
        case .aLaw: h.fourCC("alaw"); bits = 8
        case .appleIMA4, .imaADPCM: h.fourCC("ima4")
        }
        h.uint32(flags, bigEndian: true)
        h.uint32(info.bytesPerPacket, bigEndian: true)
        h.uint32(info.framesPerPacket, bigEndian: true)
        h.uint32(format.channelCount, bigEndian: true)
        h.uint32(bits, bigEndian: true)

        if format.encoding == .appleIMA4 {
            h.fourCC("pakt")
            h.uint64(24, bigEndian: true)
            h.uint64(UInt64(info.packetCount), bigEndian: true)
            h.uint64(UInt64(info.frameCount), bigEndian: true)
            h.uint32(0, bigEndian: true)  // priming frames
            h.uint32(info.packetCount * info.framesPerPacket - info.frameCount, bigEndian: true)  // remainder
        }

        h.fourCC("data")
        h.uint64(UInt64(4 + info.dataByteCount), bigEndian: true)
        h.uint32(0, bigEndian: true)  // edit count
        return h.bytes
    }
}
