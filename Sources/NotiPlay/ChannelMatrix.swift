import NotiPlayDecoder
import NotiPlayOutput

/// How a sound's channels reach a device's speakers where the mixer's own mapping would not do
/// (issue 12): `out = gains × in`, frame by frame. The decode worker builds and applies it; the
/// render thread never sees it.
///
/// The rules, in one place:
/// - A channel's speaker is the sound's ``ChannelLayout`` (a WAVE channel mask, a CAF `chan`), or,
///   where the file names none, the standard WAVE order for its channel count
///   (``ChannelLayout/standard(channelCount:)``): a 6-channel WAVE_FORMAT_PCM file is 5.1, as that
///   format means by convention. The device's speakers are those its channel map names
///   (``NegotiatedFormat/speakers``: a `hw:` 5.1 device is FL FR RL RR FC LFE), else the standard
///   order for its count too; ALSA's positions WAVE has no speaker for (wide, high, bottom, MONO
///   beside others) get nothing.
/// - A channel goes to its own speaker where the device has one. A speaker it lacks folds into its
///   neighbours: back and side surrounds into each other, else into the front speaker on their side
///   at −3 dB (√½); the centre into left and right at −3 dB; a back centre into both surrounds at
///   −3 dB (so left and right at −6 dB on stereo); left and right of centre into the front speaker on
///   their side (at −3 dB, and the centre at −3 dB, where the device has a centre); the top
///   speakers as the speakers beneath them (top centre: left and right at −3 dB); a front left or
///   right the device lacks into its centre at −3 dB, and so, at last, every speaker whose own
///   fallbacks the device lacks (surrounds at −6 dB, left and right of centre at 0 dB: a device
///   mapped FL FC). The
///   low-frequency channel is dropped where the device has none (ITU-R BS.775 gives it no part in
///   a downmix). So 5.1 (and 5.0, 7.1, quad, 3.0, …) to stereo is ITU-R BS.775's
///   L' = L + √½·C + √½·Ls, R' = R + √½·C + √½·Rs, with 7.1's back and side pairs both as Ls/Rs.
///   A 2-channel file whose layout says C + LFE plays its centre in both speakers, not left and right.
/// - The gains are not normalised: a full-scale signal in every channel at once, in phase, could
///   exceed full scale (L' reaches 2.4). FFmpeg's swresample normalises (−7.7 dB for every 5.1
///   sound) and sox's `remix` does not; here, as in sox and in BS.775's equations, the front
///   channels keep their level, so a 5.1 notification sound is as loud as its stereo twin. The
///   peak case is rare in real sounds, and the mixer clips at the device's format, never wraps.
/// - A mono sound feeds every speaker at 0 dB, whatever its one channel is labelled: that is what
///   the mixer does today, so a mono notification sound (most of them) is as loud as before. −3 dB
///   per speaker keeps a sound's power constant when it is panned between speakers; a mono sound
///   played on both is the whole programme, not a panned source, and quieter alerts would be a
///   regression (Core Audio too fans mono out to stereo at unity).
/// - A mono device gets the average of the stereo downmix, (L' + R') / 2: for a stereo sound that
///   is the mixer's own average.
/// - Unknown speakers are dropped. A sound none of whose channels reaches a speaker (all unknown, a
///   device with no standard order nor map, only LFE) is left to the mixer's positional mapping: a
///   notification is never silenced by its layout.
/// - Non-finite samples: ``apply(_:frames:into:)`` skips zero gains, so an infinite sample in a
///   channel that is dropped cannot become NaN (0 × ∞) in the others. A NaN in a channel that is
///   mixed makes the outputs it reaches NaN; the mixer's `contribution` turns those into silence.
struct ChannelMatrix: Sendable, Equatable {
    let inputChannels: Int
    let outputChannels: Int
    /// Row-major: `gains[out * inputChannels + in]`.
    let gains: [Float]

    /// Nil when the engine's own mapping already does the right thing (the matrix would be the
    /// mixer's: equal counts in the device's order, a mono sound fanned out, a mono device's
    /// average of a stereo sound, the first channels one to one); otherwise the matrix the rules
    /// above give `channelCount` channels with `layout` (a layout for another count is ignored) on
    /// `outputChannels` speakers, which are `speakers` where the device's channel map names them
    /// (a map for another count is ignored).
    static func mapping(
        from layout: ChannelLayout?, channelCount: Int, to outputChannels: Int, speakers: [ChannelLayout.Speaker]? = nil
    ) -> ChannelMatrix? {
        guard channelCount >= 1, outputChannels >= 1 else { return nil }
        let matrix = matrix(from: layout, channelCount: channelCount, to: outputChannels, speakers: speakers)
        return matrix == mixerMapping(inputChannels: channelCount, outputChannels: outputChannels) ? nil : matrix
    }

    /// The matrix the rules give, whether or not the mixer would do the same.
    static func matrix(
        from layout: ChannelLayout?, channelCount: Int, to outputChannels: Int, speakers deviceMap: [ChannelLayout.Speaker]? = nil
    ) -> ChannelMatrix {
        let mixer = mixerMapping(inputChannels: channelCount, outputChannels: outputChannels)
        guard channelCount > 1 else { return mixer }
        let described = layout?.speakers.count == channelCount ? layout?.speakers : nil
        let speakers = described ?? ChannelLayout.standard(channelCount: channelCount)?.speakers
            ?? Array(repeating: .unknown, count: channelCount)
        guard outputChannels > 1 else {
            // One speaker: whatever its map calls it, it gets the stereo downmix's average.
            guard let stereo = placed(speakers, on: deviceSpeakers(nil, count: 2)) else { return mixer }
            let average = (0..<channelCount).map { (stereo.gains[$0] + stereo.gains[channelCount + $0]) / 2 }
            return ChannelMatrix(inputChannels: channelCount, outputChannels: 1, gains: average)
        }
        return placed(speakers, on: deviceSpeakers(deviceMap, count: outputChannels)) ?? mixer
    }

    /// The WAVE speaker of each of a device's `count` channels (nil: one WAVE has no name for):
    /// as its channel map says, else the standard order for the count, else none.
    private static func deviceSpeakers(_ map: [ChannelLayout.Speaker]?, count: Int) -> [ChannelLayout.Speaker?] {
        if let map, map.count == count { return map.map { $0 == .unknown ? nil : $0 } }
        guard let standard = ChannelLayout.standard(channelCount: count) else { return Array(repeating: nil, count: count) }
        return standard.speakers.map { $0 }
    }

    /// What the mixer does with no matrix (`Mixer.addFrames`): equal counts one to one, a mono
    /// sound on every speaker, a mono device the average, otherwise the first channels one to one.
    static func mixerMapping(inputChannels: Int, outputChannels: Int) -> ChannelMatrix {
        var gains = [Float](repeating: 0, count: inputChannels * outputChannels)
        for out in 0..<outputChannels {
            for input in 0..<inputChannels {
                let gain: Float
                if inputChannels == outputChannels { gain = input == out ? 1 : 0 }
                else if inputChannels == 1 { gain = 1 }
                else if outputChannels == 1 { gain = 1 / Float(inputChannels) }
                else { gain = input == out ? 1 : 0 }
                gains[out * inputChannels + input] = gain
            }
        }
        return ChannelMatrix(inputChannels: inputChannels, outputChannels: outputChannels, gains: gains)
    }

    /// out = gains × in for `frames` interleaved frames. `output` holds `frames × outputChannels`
    /// samples and must not overlap `input`.
    func apply(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        gains.withUnsafeBufferPointer { gains in
            for frame in 0..<frames {
                let source = input + frame * inputChannels
                let target = output + frame * outputChannels
                for out in 0..<outputChannels {
                    let row = out * inputChannels
                    var sum: Float = 0
                    for channel in 0..<inputChannels where gains[row + channel] != 0 {
                        sum += gains[row + channel] * source[channel]
                    }
                    target[out] = sum
                }
            }
        }
    }

    // MARK: Placing speakers

    private static let minus3dB = Float(0.5.squareRoot())

    /// The matrix that puts each speaker where the rules say on a device with `device`'s
    /// speakers, or nil when no channel reaches any speaker.
    private static func placed(_ speakers: [ChannelLayout.Speaker], on device: [ChannelLayout.Speaker?]) -> ChannelMatrix? {
        let outputChannels = device.count
        var gains = [Float](repeating: 0, count: speakers.count * outputChannels)
        for (channel, speaker) in speakers.enumerated() {
            for (out, gain) in placement(of: speaker, on: device) {
                gains[out * speakers.count + channel] += gain
            }
        }
        guard gains.contains(where: { $0 != 0 }) else { return nil }
        return ChannelMatrix(inputChannels: speakers.count, outputChannels: outputChannels, gains: gains)
    }

    /// The device speakers (indexes into `device`) a speaker reaches, and at what gain.
    private static func placement(of speaker: ChannelLayout.Speaker, on device: [ChannelLayout.Speaker?]) -> [(Int, Float)] {
        if let index = device.firstIndex(of: speaker) { return [(index, 1)] }
        if let beneath = floorSpeaker(beneath: speaker) { return placement(of: beneath, on: device) }
        for alternative in fallbacks(for: speaker) {
            let indexes = alternative.compactMap { device.firstIndex(of: $0.speaker) }
            if indexes.count == alternative.count { return zip(indexes, alternative.map(\.gain)).map { ($0, $1) } }
        }
        return []
    }

    /// Where a speaker the device lacks goes instead: the first group the device has all of.
    private static func fallbacks(for speaker: ChannelLayout.Speaker) -> [[(speaker: ChannelLayout.Speaker, gain: Float)]] {
        let h = minus3dB
        switch speaker {
        case .frontCenter, .topCenter: return [[(.frontLeft, h), (.frontRight, h)]]
        case .frontLeft, .frontRight: return [[(.frontCenter, h)]]  // a device without that side (FL FC)
        // Last, for a device without that side's front speaker (FL FC): the centre.
        case .sideLeft: return [[(.backLeft, 1)], [(.frontLeft, h)], [(.frontCenter, 0.5)]]
        case .sideRight: return [[(.backRight, 1)], [(.frontRight, h)], [(.frontCenter, 0.5)]]
        case .backLeft: return [[(.sideLeft, 1)], [(.frontLeft, h)], [(.frontCenter, 0.5)]]
        case .backRight: return [[(.sideRight, 1)], [(.frontRight, h)], [(.frontCenter, 0.5)]]
        case .backCenter:
            return [[(.backLeft, h), (.backRight, h)], [(.sideLeft, h), (.sideRight, h)], [(.frontLeft, 0.5), (.frontRight, 0.5)],
                    [(.frontCenter, 0.5)]]
        case .frontLeftOfCenter: return [[(.frontLeft, h), (.frontCenter, h)], [(.frontLeft, 1)], [(.frontCenter, 1)]]
        case .frontRightOfCenter: return [[(.frontRight, h), (.frontCenter, h)], [(.frontRight, 1)], [(.frontCenter, 1)]]
        default: return []  // the low-frequency channel, unknown speakers: dropped
        }
    }

    private static func floorSpeaker(beneath speaker: ChannelLayout.Speaker) -> ChannelLayout.Speaker? {
        switch speaker {
        case .topFrontLeft: .frontLeft
        case .topFrontCenter: .frontCenter
        case .topFrontRight: .frontRight
        case .topBackLeft: .backLeft
        case .topBackCenter: .backCenter
        case .topBackRight: .backRight
        default: nil
        }
    }
}
