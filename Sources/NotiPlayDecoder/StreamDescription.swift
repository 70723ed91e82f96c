/// The file formats noti-play reads and writes.
public enum Container: String, Sendable, Hashable, CaseIterable {
    /// RIFF WAVE, little-endian.
    case wave = "WAVE"
    /// RIFX WAVE: the big-endian twin of RIFF.
    case rifx = "RIFX"
    /// RF64 WAVE (EBU Tech 3306): 64-bit sizes in a `ds64` chunk.
    case rf64 = "RF64"
    /// AIFF: big-endian integer PCM only.
    case aiff = "AIFF"
    /// AIFF-C: AIFF with a compression type.
    case aifc = "AIFC"
    /// Apple Core Audio Format.
    case caf = "CAFF"

    /// A short human name, as `noti-play info` prints it.
    public var displayName: String {
        switch self {
        case .wave: "WAVE"
        case .rifx: "WAVE (RIFX, big-endian)"
        case .rf64: "WAVE (RF64)"
        case .aiff: "AIFF"
        case .aifc: "AIFF-C"
        case .caf: "CAF"
        }
    }
}

/// How Linear PCM samples are stored.
public struct LinearPCMFormat: Sendable, Hashable {
    /// 8, 16, 24, 32 or 64 bits. A sample occupies `bitsPerSample / 8` bytes.
    public var bitsPerSample: Int
    /// IEEE float (32 or 64 bits) rather than integer.
    public var isFloat: Bool
    public var isBigEndian: Bool
    /// Integers are signed except 8-bit WAV, which is unsigned (offset 128).
    public var isSigned: Bool
    /// Set only for 24-bit samples in 32-bit words (`bitsPerSample` 32): which three bytes of
    /// the word hold the sample. nil: every bit of the word is the sample's.
    public var alignment24: Alignment24? = nil

    public init(bitsPerSample: Int, isFloat: Bool, isBigEndian: Bool, isSigned: Bool = true) {
        self.bitsPerSample = bitsPerSample
        self.isFloat = isFloat
        self.isBigEndian = isBigEndian
        self.isSigned = isSigned
    }

    public var bytesPerSample: Int { bitsPerSample / 8 }
}

/// Where a 24-bit sample sits in its 4-byte word (WAV writers use both; see ``LinearPCMFormat/alignment24``).
public enum Alignment24: Sendable, Hashable {
    /// The top three bytes, the low byte zero: WAVE_FORMAT_EXTENSIBLE's rule. Decodes as the
    /// 32-bit integer the word is.
    case high
    /// The low three bytes, the top byte a copy of the sign or zero: ALSA's S24_LE, as
    /// `arecord -f S24_LE` and hound write it.
    case low
}

/// The encodings of Apple's notification-sound model.
public enum Encoding: Sendable, Hashable {
    case linearPCM(LinearPCMFormat)
    /// Microsoft/DVI IMA ADPCM (WAV format tag 0x0011): blocks with a 4-byte header per channel.
    case imaADPCM
    /// Apple IMA4 (AIFC and CAF `ima4`): 34-byte packets of 64 frames per channel.
    case appleIMA4
    /// ITU-T G.711 µ-law.
    case muLaw
    /// ITU-T G.711 A-law.
    case aLaw

    /// Bits one encoded sample takes (4 for the ADPCM forms).
    public var bitsPerSample: Int {
        switch self {
        case .linearPCM(let format): format.bitsPerSample
        case .imaADPCM, .appleIMA4: 4
        case .muLaw, .aLaw: 8
        }
    }

    /// afconvert's name for the data format (`LEI16`, `BEF32`, `ima4`, `ulaw`, ...).
    /// Unsigned 8-bit PCM is `UI8`, signed `I8`, as afconvert has no endianness for single bytes.
    public var afconvertName: String {
        switch self {
        case .linearPCM(let f):
            if f.bitsPerSample == 8 { return f.isSigned ? "I8" : "UI8" }
            return (f.isBigEndian ? "BE" : "LE") + (f.isFloat ? "F" : "I") + String(f.bitsPerSample)
        case .imaADPCM: return "ima-adpcm"
        case .appleIMA4: return "ima4"
        case .muLaw: return "ulaw"
        case .aLaw: return "alaw"
        }
    }

    /// A description for people: "16-bit signed integer PCM, little-endian".
    public var displayName: String {
        switch self {
        case .linearPCM(let f):
            let kind = f.isFloat ? "float" : (f.isSigned ? "signed integer" : "unsigned integer")
            let order = f.bitsPerSample == 8 ? "" : (f.isBigEndian ? ", big-endian" : ", little-endian")
            switch f.alignment24 {
            case .high: return "Linear PCM, 24-bit \(kind) in the top three bytes of 32-bit words\(order)"
            case .low: return "Linear PCM, 24-bit \(kind) in the low three bytes of 32-bit words\(order)"
            case nil: return "Linear PCM, \(f.bitsPerSample)-bit \(kind)\(order)"
            }
        case .imaADPCM: return "IMA ADPCM (Microsoft/DVI, 4-bit)"
        case .appleIMA4: return "IMA4 (Apple IMA ADPCM, 4-bit)"
        case .muLaw: return "µ-law (G.711)"
        case .aLaw: return "A-law (G.711)"
        }
    }
}

/// What a sound file holds, as its header and data say after validation.
public struct StreamDescription: Sendable, Hashable {
    public var container: Container
    public var encoding: Encoding
    /// Frames per second; finite and positive.
    public var sampleRate: Double
    /// Interleaved channels per frame (1 through ``StreamDescription/maximumChannelCount``).
    public var channelCount: Int
    /// The speaker of each channel, where the file says (a WAVE_FORMAT_EXTENSIBLE channel mask, a
    /// CAF `chan` chunk); nil where it does not, or says it for another number of channels.
    public var channelLayout: ChannelLayout? = nil
    /// The true number of frames: padding of the last packet and priming frames excluded.
    public var frameCount: Int
    /// Bytes of one packet: a frame for PCM and G.711, a block for IMA ADPCM, all channels' 34-byte
    /// packets for IMA4.
    public var bytesPerPacket: Int
    /// Frames one whole packet decodes to (1 for PCM and G.711).
    public var framesPerPacket: Int
    /// Frames decoded at the start that are not part of the sound (CAF `pakt` priming).
    public var primingFrames: Int
    /// Where the audio data starts in the file.
    public var dataOffset: Int
    /// How many bytes of audio data the file holds (what is present, not what a header claimed).
    public var dataByteCount: Int
    /// The file holds less audio than its header promises (it was cut short). What is there
    /// still decodes; a validator (an attachment check) refuses it.
    public var isTruncated = false
    /// What the header said that noti-play did not follow, one sentence each, for people
    /// (`noti-play info` prints them): "fact says 11225 frames; the blocks hold 22451: playing the blocks".
    public var notes: [String] = []

    public static let maximumChannelCount = 64

    /// The highest sample rate read or written: rates far above it are header corruption, not audio.
    public static let maximumSampleRate = 1_536_000.0

    /// Seconds the sound lasts.
    public var duration: Double { Double(frameCount) / sampleRate }

    /// Packets that hold the sound (priming included): the ones decoding reads. Bytes after them
    /// (a partial frame, a last block too short for its headers, padding) are not counted, so
    /// this agrees with ``frameCount``.
    public var packetCount: Int {
        framesPerPacket == 0 ? 0 : (primingFrames + frameCount + framesPerPacket - 1) / framesPerPacket
    }

    public init(
        container: Container, encoding: Encoding, sampleRate: Double, channelCount: Int,
        frameCount: Int, bytesPerPacket: Int, framesPerPacket: Int, primingFrames: Int = 0,
        dataOffset: Int, dataByteCount: Int
    ) {
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.primingFrames = primingFrames
        self.dataOffset = dataOffset
        self.dataByteCount = dataByteCount
    }
}
