/// The speaker each channel of a sound is meant for, as its file says: a WAVE_FORMAT_EXTENSIBLE
/// channel mask, or a CAF `chan` chunk. ``StreamDescription/channelLayout`` is nil where the file
/// says nothing (AIFF, plain WAVE_FORMAT_PCM, CAF without `chan`).
///
/// Surrounds: WAVE names its "back" (SPEAKER_BACK_*, 5.1's surrounds) and "side" (7.1's extra
/// pair) speakers; Apple's layout tags name "surround" (Ls, Rs) and "rear surround" (Rls, Rrs).
/// Apple's own tags for WAVE orders (WAVE_5_1_B is L R C LFE Rls Rrs, WAVE_7_1 is
/// L R C LFE Rls Rrs Ls Rs) say that Ls/Rs are WAVE's side speakers and Rls/Rrs its back ones,
/// and so do FFmpeg's tables: that is how CAF layouts are read here. A 5.1 file may therefore
/// say back (WAVE) or side (CAF) surrounds; a downmix treats the two alike.
public struct ChannelLayout: Sendable, Hashable {
    public enum Speaker: Sendable, Hashable {
        case frontLeft, frontRight, frontCenter, lowFrequency, backLeft, backRight
        case frontLeftOfCenter, frontRightOfCenter, backCenter, sideLeft, sideRight
        case topCenter, topFrontLeft, topFrontCenter, topFrontRight, topBackLeft, topBackCenter, topBackRight
        /// A channel the file names no speaker for (or one noti-play has no name for).
        case unknown

        /// The WAVE SPEAKER_* bits in order: bit `i` of a channel mask is `maskOrder[i]`. CAF's
        /// channel bitmap uses the same bits (CoreAudioTypes: kAudioChannelBit_*).
        static let maskOrder: [Speaker] = [
            .frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight,
            .frontLeftOfCenter, .frontRightOfCenter, .backCenter, .sideLeft, .sideRight,
            .topCenter, .topFrontLeft, .topFrontCenter, .topFrontRight, .topBackLeft, .topBackCenter, .topBackRight,
        ]
    }

    /// One per channel, in the file's channel order.
    public var speakers: [Speaker]

    public init(speakers: [Speaker]) {
        self.speakers = speakers
    }

    /// The standard WAVE order for `channelCount` channels, what a file without a layout means by
    /// convention (WAVE_FORMAT_PCM with 6 channels is 5.1): 1 C; 2 L R; 3 L R C; 4 L R Ls Rs;
    /// 5 L R C Ls Rs; 6 L R C LFE Ls Rs; 7 L R C LFE Cs Lsd Rsd (6.1); 8 L R C LFE Ls Rs Lsd Rsd
    /// (7.1), with Ls Rs WAVE's back speakers and Lsd Rsd its side ones. Nil for other counts.
    public static func standard(channelCount: Int) -> ChannelLayout? {
        let masks: [UInt32] = [0x4, 0x3, 0x7, 0x33, 0x37, 0x3F, 0x70F, 0x63F]
        guard channelCount >= 1, channelCount <= masks.count else { return nil }
        return ChannelLayout(speakerMask: masks[channelCount - 1], channelCount: channelCount)
    }

    /// The order Ogg Vorbis and Opus (channel mapping family 1) give their channels, which their
    /// decoders keep (libsndfile says nothing of it): 1 C; 2 L R; 3 L C R; 4 L R Ls Rs;
    /// 5 L C R Ls Rs; 6 L C R Ls Rs LFE; 7 L C R Lsd Rsd Cs LFE; 8 L C R Lsd Rsd Ls Rs LFE
    /// (Vorbis I specification, 4.3.9), with Ls Rs the back speakers and Lsd Rsd the side ones,
    /// as in ``standard(channelCount:)``. Nil for other counts, which Vorbis leaves to the application.
    public static func vorbis(channelCount: Int) -> ChannelLayout? {
        let orders: [[Speaker]] = [
            [.frontCenter],
            [.frontLeft, .frontRight],
            [.frontLeft, .frontCenter, .frontRight],
            [.frontLeft, .frontRight, .backLeft, .backRight],
            [.frontLeft, .frontCenter, .frontRight, .backLeft, .backRight],
            [.frontLeft, .frontCenter, .frontRight, .backLeft, .backRight, .lowFrequency],
            [.frontLeft, .frontCenter, .frontRight, .sideLeft, .sideRight, .backCenter, .lowFrequency],
            [.frontLeft, .frontCenter, .frontRight, .sideLeft, .sideRight, .backLeft, .backRight, .lowFrequency],
        ]
        guard channelCount >= 1, channelCount <= orders.count else { return nil }
        return ChannelLayout(speakers: orders[channelCount - 1])
    }

    /// The layout a WAVE channel mask (or CAF channel bitmap) gives: channel `i` is the speaker of
    /// the mask's `i`th set bit, lowest first. More bits than channels: the first ones count.
    /// Fewer: the channels left over are ``Speaker/unknown``, as are channels on reserved bits
    /// (18 to 31). A mask of 0 names no speaker at all: nil, as if there were no mask.
    init?(speakerMask mask: UInt32, channelCount: Int) {
        guard mask != 0 else { return nil }
        var speakers: [Speaker] = []
        speakers.reserveCapacity(channelCount)
        for bit in 0..<32 where mask & (1 << UInt32(bit)) != 0 && speakers.count < channelCount {
            speakers.append(bit < Speaker.maskOrder.count ? Speaker.maskOrder[bit] : .unknown)
        }
        while speakers.count < channelCount { speakers.append(.unknown) }
        self.init(speakers: speakers)
    }
}
