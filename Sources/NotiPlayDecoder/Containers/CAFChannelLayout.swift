/// A CAF `chan` chunk: CoreAudioTypes' AudioChannelLayout, big-endian. A layout tag, a channel
/// bitmap, a count of channel descriptions, then the descriptions, 20 bytes each (a label, flags,
/// three Float32 coordinates).
///
/// Lenient: a `chan` chunk that is short or cut, describes another number of channels than the
/// sound has, or uses a tag noti-play does not know gives no layout (nil), and the sound plays as
/// a file without one. A layout only refines which speaker a channel reaches; no sound should fail
/// for it. Coordinates, and so NaN in them, are never read: speakers are placed by label alone.
enum CAFChannelLayout {
    static let headerSize = 12
    static let descriptionSize = 20
    /// The most of a `chan` chunk worth reading: descriptions for the most channels a sound has.
    /// More describe other channels than the sound's, so the bytes past this never matter.
    static let maximumUsefulSize = headerSize + descriptionSize * StreamDescription.maximumChannelCount

    enum Tag {
        static let useChannelDescriptions: UInt32 = 0
        static let useChannelBitmap: UInt32 = 1 << 16
    }

    /// The layout `body` (up to ``maximumUsefulSize`` bytes of the chunk) gives `channelCount`
    /// channels, or nil.
    static func layout(_ body: [UInt8], channelCount: Int) -> ChannelLayout? {
        var reader = ByteReader(body, context: "'chan' chunk")
        guard let tag = try? reader.uint32(bigEndian: true),
              let bitmap = try? reader.uint32(bigEndian: true),
              let descriptionCount = try? reader.uint32(bigEndian: true)
        else { return nil }
        switch tag {
        case Tag.useChannelDescriptions:
            guard descriptionCount == channelCount else { return nil }
            var speakers: [ChannelLayout.Speaker] = []
            for _ in 0..<channelCount {
                guard let label = try? reader.uint32(bigEndian: true), (try? reader.skip(descriptionSize - 4)) != nil else {
                    return nil
                }
                speakers.append(speaker(label: label))
            }
            return ChannelLayout(speakers: speakers)
        case Tag.useChannelBitmap:
            // The bitmap's bits are WAVE's: the same rule as a WAVE channel mask.
            return ChannelLayout(speakerMask: bitmap, channelCount: channelCount)
        default:
            // DiscreteInOrder, Unknown, and tags not listed: the file names no speakers we know.
            guard let speakers = speakers(tag: tag), speakers.count == channelCount else { return nil }
            return ChannelLayout(speakers: speakers)
        }
    }

    /// kAudioChannelLabel_*. Ls/Rs are side and Rls/Rrs back speakers (see ``ChannelLayout``);
    /// matrix-encoded Lt/Rt and headphone channels play as left and right.
    static func speaker(label: UInt32) -> ChannelLayout.Speaker {
        switch label {
        case 1, 38, 301: .frontLeft
        case 2, 39, 302: .frontRight
        case 3, 42: .frontCenter
        case 4, 37: .lowFrequency
        case 5, 10: .sideLeft
        case 6, 11: .sideRight
        case 7: .frontLeftOfCenter
        case 8: .frontRightOfCenter
        case 9, 44: .backCenter
        case 12: .topCenter
        case 13: .topFrontLeft
        case 14: .topFrontCenter
        case 15: .topFrontRight
        case 16: .topBackLeft
        case 17: .topBackCenter
        case 18: .topBackRight
        case 33: .backLeft
        case 34: .backRight
        default: .unknown
        }
    }

    /// The speakers of a kAudioChannelLayoutTag_* (its number: an index << 16 | the channel count),
    /// in the tag's channel order, as CoreAudioTypes lists them. Aliases (AudioUnit_5_0 is
    /// MPEG_5_0_B, AudioUnit_5_1 MPEG_5_1_A, AudioUnit_6_1 MPEG_6_1_A, AudioUnit_7_1 MPEG_7_1_C,
    /// WAVE_4_0_A ITU_2_2, ...) share their number. Nil for a count that is not the tag's.
    static func speakers(tag: UInt32) -> [ChannelLayout.Speaker]? {
        guard let speakers = speakersInOrder(tagIndex: tag >> 16), speakers.count == tag & 0xFFFF else { return nil }
        return speakers
    }

    private static func speakersInOrder(tagIndex: UInt32) -> [ChannelLayout.Speaker]? {
        let L = ChannelLayout.Speaker.frontLeft, R = ChannelLayout.Speaker.frontRight
        let C = ChannelLayout.Speaker.frontCenter, LFE = ChannelLayout.Speaker.lowFrequency
        let Ls = ChannelLayout.Speaker.sideLeft, Rs = ChannelLayout.Speaker.sideRight
        let Rls = ChannelLayout.Speaker.backLeft, Rrs = ChannelLayout.Speaker.backRight
        let Cs = ChannelLayout.Speaker.backCenter
        let Lc = ChannelLayout.Speaker.frontLeftOfCenter, Rc = ChannelLayout.Speaker.frontRightOfCenter
        switch tagIndex {
        case 100: return [C]  // Mono
        case 101, 102, 103, 106: return [L, R]  // Stereo, StereoHeadphones, MatrixStereo (Lt Rt), Binaural
        // Quadraphonic: 90° apart, so its rear pair is WAVE's back (as CoreAudioTypes once said and FFmpeg reads it).
        case 108: return [L, R, Rls, Rrs]
        case 113: return [L, R, C]  // MPEG_3_0_A, WAVE_3_0
        case 114: return [C, L, R]  // MPEG_3_0_B
        case 115: return [L, R, C, Cs]  // MPEG_4_0_A
        case 116: return [C, L, R, Cs]  // MPEG_4_0_B
        case 117: return [L, R, C, Ls, Rs]  // MPEG_5_0_A, WAVE_5_0_A
        case 118: return [L, R, Ls, Rs, C]  // MPEG_5_0_B, AudioUnit_5_0
        case 119: return [L, C, R, Ls, Rs]  // MPEG_5_0_C
        case 120: return [C, L, R, Ls, Rs]  // MPEG_5_0_D
        case 121: return [L, R, C, LFE, Ls, Rs]  // MPEG_5_1_A, AudioUnit_5_1, WAVE_5_1_A
        case 122: return [L, R, Ls, Rs, C, LFE]  // MPEG_5_1_B
        case 123: return [L, C, R, Ls, Rs, LFE]  // MPEG_5_1_C
        case 124: return [C, L, R, Ls, Rs, LFE]  // MPEG_5_1_D
        case 125: return [L, R, C, LFE, Ls, Rs, Cs]  // MPEG_6_1_A, AudioUnit_6_1
        case 126: return [L, R, C, LFE, Ls, Rs, Lc, Rc]  // MPEG_7_1_A
        case 128: return [L, R, C, LFE, Ls, Rs, Rls, Rrs]  // MPEG_7_1_C, AudioUnit_7_1
        case 131: return [L, R, Cs]  // ITU_2_1
        case 132: return [L, R, Ls, Rs]  // ITU_2_2, WAVE_4_0_A
        case 133: return [L, R, LFE]  // DVD_4, WAVE_2_1
        case 139: return [L, R, Ls, Rs, C, Cs]  // AudioUnit_6_0
        case 140: return [L, R, Ls, Rs, C, Rls, Rrs]  // AudioUnit_7_0
        case 149: return [C, LFE]  // AC3_1_0_1
        case 185: return [L, R, Rls, Rrs]  // WAVE_4_0_B
        case 186: return [L, R, C, Rls, Rrs]  // WAVE_5_0_B
        case 187: return [L, R, C, LFE, Rls, Rrs]  // WAVE_5_1_B
        case 188: return [L, R, C, LFE, Cs, Ls, Rs]  // WAVE_6_1
        case 189: return [L, R, C, LFE, Rls, Rrs, Ls, Rs]  // WAVE_7_1
        default: return nil
        }
    }
}
