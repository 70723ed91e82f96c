import NotiPlayDecoder

/// AIFF and AIFF-C, big-endian: (`FVER` for AIFF-C), `COMM`, then `SSND` with zero offset and
/// block size.
///
/// AIFF holds big-endian signed integers only. AIFF-C adds a compression type: NONE, `sowt`
/// (little-endian 16-bit only: the one width both ffmpeg and libsndfile read back), fl32, fl64,
/// ulaw, alaw and ima4, for which COMM counts 64-frame packets rather than frames.
enum AIFFWriter: ContainerWriter {
    static let padsOddData = true

    static func fits(_ info: HeaderInfo, headerSize: Int) -> Bool {
        headerSize - 8 + info.dataByteCount + 1 <= UInt32.max && info.packetCount <= UInt32.max
    }

    static func refusal(_ encoding: Encoding, compressed: Bool) -> String? {
        let name = compressed ? "AIFC" : "AIFF"
        switch encoding {
        case .linearPCM(let f) where f.bitsPerSample == 8:
            return f.isSigned ? nil : "\(name) 8-bit PCM is signed; use -d I8"
        case .linearPCM(let f) where !compressed:
            return f.isBigEndian && !f.isFloat ? nil : "AIFF holds big-endian integer PCM only"
        case .muLaw, .aLaw, .appleIMA4, .imaADPCM:
            guard compressed else { return "AIFF holds big-endian integer PCM only" }
            return encoding == .imaADPCM ? "AIFC holds Apple ima4 packets, not WAV IMA ADPCM blocks" : nil
        case .linearPCM(let f) where f.isBigEndian:
            return nil
        case .linearPCM(let f) where f.isFloat:
            return "AIFC holds big-endian float only"
        case .linearPCM(let f):
            return f.bitsPerSample == 16 ? nil : "AIFC holds little-endian (sowt) PCM of 16 bits only"
        }
    }

    /// The compression type and its name (a Pascal string, padded to an even length).
    private static func compression(_ encoding: Encoding) -> (type: String, name: String) {
        switch encoding {
        case .linearPCM(let f) where f.isFloat: f.bitsPerSample == 32 ? ("fl32", "32-bit floating point") : ("fl64", "64-bit floating point")
        case .linearPCM(let f) where !f.isBigEndian && f.bitsPerSample > 8: ("sowt", "")
        case .linearPCM: ("NONE", "not compressed")
        case .muLaw: ("ulaw", "uLaw 2:1")
        case .aLaw: ("alaw", "aLaw 2:1")
        case .appleIMA4, .imaADPCM: ("ima4", "IMA 4:1")
        }
    }

    static func header(_ info: HeaderInfo) -> [UInt8] {
        let format = info.format
        let compressed = format.container == .aifc
        var comm = HeaderBytes()
        comm.uint16(format.channelCount, bigEndian: true)
        comm.uint32(format.encoding == .appleIMA4 ? info.packetCount : info.frameCount, bigEndian: true)
        // Compressed forms give the width they decode to, as Apple's tools write.
        let sampleSize: Int
        switch format.encoding {
        case .linearPCM(let f): sampleSize = f.bitsPerSample
        case .muLaw, .aLaw, .appleIMA4, .imaADPCM: sampleSize = 16
        }
        comm.uint16(sampleSize, bigEndian: true)
        comm.bytes += Extended80.encode(format.sampleRate)
        if compressed {
            let (type, name) = compression(format.encoding)
            comm.fourCC(type)
            comm.bytes.append(UInt8(name.utf8.count))
            comm.bytes += name.utf8
            if name.utf8.count % 2 == 0 { comm.bytes.append(0) }
        }

        var h = HeaderBytes()
        h.fourCC("FORM")
        let fverBytes = compressed ? 12 : 0
        let padded = info.dataByteCount + (info.dataByteCount & 1)
        h.uint32(4 + fverBytes + (8 + comm.bytes.count) + 16 + padded, bigEndian: true)
        h.fourCC(compressed ? "AIFC" : "AIFF")
        if compressed {
            h.fourCC("FVER")
            h.uint32(4, bigEndian: true)
            h.uint32(0xA280_5140, bigEndian: true)  // AIFF-C version 1
        }
        h.fourCC("COMM")
        h.uint32(comm.bytes.count, bigEndian: true)
        h.bytes += comm.bytes
        h.fourCC("SSND")
        h.uint32(8 + info.dataByteCount, bigEndian: true)
        h.uint32(0, bigEndian: true)  // offset
        h.uint32(0, bigEndian: true)  // block size
        return h.bytes
    }
}
