@testable import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// ChannelMatrix: the gains each rule gives, nil where the mixer's own mapping is the same, and
/// `apply` on what the decoder reads from ffmpeg's 5.1 files against BS.775 computed here.
@Suite struct ChannelMatrixTests {
    typealias Speaker = ChannelLayout.Speaker
    let h = Float(0.5.squareRoot())

    func gains(_ speakers: [Speaker]?, channels: Int? = nil, to outputs: Int, deviceMap: [Speaker]? = nil) -> [[Float]] {
        let count = channels ?? speakers!.count
        let matrix = ChannelMatrix.matrix(from: speakers.map(ChannelLayout.init), channelCount: count, to: outputs, speakers: deviceMap)
        #expect(matrix.inputChannels == count && matrix.outputChannels == outputs)
        return (0..<outputs).map { Array(matrix.gains[$0 * count..<($0 + 1) * count]) }
    }

    func mapping(_ speakers: [Speaker]?, channels: Int? = nil, to outputs: Int, deviceMap: [Speaker]? = nil) -> ChannelMatrix? {
        ChannelMatrix.mapping(from: speakers.map(ChannelLayout.init), channelCount: channels ?? speakers!.count, to: outputs, speakers: deviceMap)
    }

    @Test func monoFeedsEverySpeakerAtUnityWhateverItsLabel() {
        for label: Speaker in [.frontCenter, .frontLeft, .lowFrequency, .unknown] {
            #expect(gains([label], to: 2) == [[1], [1]])
            #expect(mapping([label], to: 2) == nil)
            #expect(mapping([label], to: 6) == nil)
        }
        #expect(mapping(nil, channels: 1, to: 1) == nil)
    }

    @Test func stereoOnAMonoDeviceIsTheAverage() {
        #expect(gains([.frontLeft, .frontRight], to: 1) == [[0.5, 0.5]])
        #expect(mapping(nil, channels: 2, to: 1) == nil)
    }

    /// ITU-R BS.775, unnormalised; back (WAVE's 5.1) and side (CAF's, 5.1(side)) surrounds alike.
    @Test func fivePointOneToStereo() {
        let expected: [[Float]] = [[1, 0, h, 0, h, 0], [0, 1, h, 0, 0, h]]
        #expect(gains(nil, channels: 6, to: 2) == expected)
        #expect(gains([.frontLeft, .frontRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight], to: 2) == expected)
        #expect(mapping(nil, channels: 6, to: 2)?.gains == expected.flatMap { $0 })
        // MPEG_5_1_D's order: C L R Ls Rs LFE.
        #expect(gains([.frontCenter, .frontLeft, .frontRight, .sideLeft, .sideRight, .lowFrequency], to: 2)
            == [[h, 1, 0, h, 0, 0], [h, 0, 1, 0, h, 0]])
    }

    @Test func sevenPointOneToStereo() {
        #expect(gains(nil, channels: 8, to: 2) == [[1, 0, h, 0, h, 0, h, 0], [0, 1, h, 0, 0, h, 0, h]])
    }

    /// A file without a layout is in the standard WAVE order for its count.
    @Test func positionalDefaults() {
        #expect(gains(nil, channels: 3, to: 2) == [[1, 0, h], [0, 1, h]])
        #expect(gains(nil, channels: 4, to: 2) == [[1, 0, h, 0], [0, 1, 0, h]])
        #expect(gains(nil, channels: 5, to: 2) == [[1, 0, h, h, 0], [0, 1, h, 0, h]])
        // 6.1: L R C LFE Cs Lsd Rsd; the back centre reaches left and right at −6 dB.
        #expect(gains(nil, channels: 7, to: 2) == [[1, 0, h, 0, 0.5, h, 0], [0, 1, h, 0, 0.5, 0, h]])
    }

    @Test func aStereoFileThatIsCentreAndLFEPlaysItsCentreInBothSpeakers() {
        #expect(gains([.frontCenter, .lowFrequency], to: 2) == [[h, 0], [h, 0]])
        #expect(mapping([.frontCenter, .lowFrequency], to: 2) != nil)
        #expect(gains([.frontCenter, .lowFrequency], to: 1) == [[h, 0]])
    }

    @Test func fivePointOneOnAMonoDeviceIsTheAverageOfItsStereoDownmix() {
        #expect(gains(nil, channels: 6, to: 1) == [[0.5, 0.5, h, 0, h / 2, h / 2]])
    }

    /// Onto more speakers: each channel to its own, a missing one folded into its neighbour.
    @Test func ontoSurroundDevices() {
        // Quad on 5.1: the rear pair to the surrounds, not (as positionally) to C and LFE.
        #expect(gains(nil, channels: 4, to: 6) == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        // 7.1 on 5.1: back and side pairs both into the surrounds.
        #expect(gains(nil, channels: 8, to: 6)[4] == [0, 0, 0, 0, 1, 0, 1, 0])
        // 5.1 on a quad device: the centre into left and right, LFE dropped.
        #expect(gains(nil, channels: 6, to: 4) == [[1, 0, h, 0, 0, 0], [0, 1, h, 0, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]])
        // 7.1(wide) on 5.1: left of centre between left and centre.
        let wide: [Speaker] = [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight, .frontLeftOfCenter, .frontRightOfCenter]
        #expect(gains(wide, to: 6)[0] == [1, 0, 0, 0, 0, 0, h, 0])
        #expect(gains(wide, to: 6)[2] == [0, 0, 1, 0, 0, 0, h, h])
        #expect(gains(wide, to: 2)[0] == [1, 0, h, 0, h, 0, 1, 0])
    }

    @Test func nilWhereTheMixerDoesTheSame() {
        #expect(mapping([.frontLeft, .frontRight], to: 2) == nil)
        #expect(mapping(nil, channels: 6, to: 6) == nil)
        #expect(mapping([.frontLeft, .frontRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight], to: 6) == nil)
        #expect(mapping(nil, channels: 8, to: 8) == nil)
        #expect(mapping(nil, channels: 2, to: 6) == nil)  // the first channels one to one
        #expect(mapping(nil, channels: 12, to: 12) == nil)  // no standard order: positional
        #expect(mapping(nil, channels: 12, to: 2) == nil)
        #expect(mapping(nil, channels: 6, to: 10) == nil)  // a device with no standard order
        #expect(mapping(nil, channels: 4, to: 6) != nil)
    }

    /// Unknown speakers are dropped, unless nothing would be left.
    @Test func unknownSpeakers() {
        #expect(gains([.frontLeft, .frontRight, .unknown, .unknown], to: 2) == [[1, 0, 0, 0], [0, 1, 0, 0]])
        #expect(mapping([.unknown, .unknown], to: 2) == nil)
        #expect(mapping([.lowFrequency, .lowFrequency], to: 2) == nil)
    }

    /// A layout for another number of channels than the sound's is ignored.
    @Test func aLayoutForOtherChannelsIsIgnored() {
        let fiveOne = ChannelLayout(speakers: [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight])
        #expect(ChannelMatrix.mapping(from: fiveOne, channelCount: 2, to: 2) == nil)
    }

    // MARK: Devices with a channel map

    /// A `hw:` 5.1 device: FL FR RL RR FC LFE.
    let hardwareFiveOne: [Speaker] = [.frontLeft, .frontRight, .backLeft, .backRight, .frontCenter, .lowFrequency]

    /// Each channel to the device channel of its name: WAVE's back pair to ALSA's rear one.
    @Test func fivePointOneOnAHardwareOrderedDeviceByName() {
        let expected: [[Float]] = [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1],
                                   [0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0]]
        #expect(gains(nil, channels: 6, to: 6, deviceMap: hardwareFiveOne) == expected)
        // CAF's 5.1 names side surrounds: they fold into the rear pair.
        #expect(gains([.frontLeft, .frontRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight], to: 6, deviceMap: hardwareFiveOne)
            == expected)
        #expect(mapping(nil, channels: 6, to: 6, deviceMap: hardwareFiveOne) != nil)
        // 7.1 (L R C LFE BL BR SL SR) on a `hw:` 7.1 device (FL FR RL RR FC LFE SL SR).
        let hardwareSevenOne = hardwareFiveOne + [.sideLeft, .sideRight]
        #expect(gains(nil, channels: 8, to: 8, deviceMap: hardwareSevenOne).map { $0.firstIndex(of: 1) } == [0, 1, 4, 5, 2, 3, 6, 7])
        // Stereo: left and right, on the two first channels, as the mixer puts them.
        #expect(mapping(nil, channels: 2, to: 6, deviceMap: hardwareFiveOne) == nil)
        // Quad (L R BL BR): its rear pair on RL RR, which are channels 2 and 3 here, as positionally.
        #expect(mapping(nil, channels: 4, to: 6, deviceMap: hardwareFiveOne) == nil)
    }

    @Test func aMapInWAVEOrderChangesNothing() {
        let waveOrder: [Speaker] = [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight]
        #expect(mapping(nil, channels: 6, to: 6, deviceMap: waveOrder) == nil)
        #expect(mapping(nil, channels: 6, to: 2, deviceMap: [.frontLeft, .frontRight]) == mapping(nil, channels: 6, to: 2))
        #expect(mapping(nil, channels: 2, to: 2, deviceMap: [.frontLeft, .frontRight]) == nil)
    }

    @Test func aSwappedStereoDeviceSwaps() {
        #expect(gains(nil, channels: 2, to: 2, deviceMap: [.frontRight, .frontLeft]) == [[0, 1], [1, 0]])
        // A 5.1 downmix onto it: each side's sum on its own speaker.
        #expect(gains(nil, channels: 6, to: 2, deviceMap: [.frontRight, .frontLeft]) == [[0, 1, h, 0, 0, h], [1, 0, h, 0, h, 0]])
    }

    /// A device that lacks a front speaker of one side but has a centre (FL FC): that side's
    /// channel reaches the centre at −3 dB instead of being dropped.
    @Test func aMissingFrontSideFallsToTheCentre() {
        #expect(gains([.frontLeft, .frontRight], to: 2, deviceMap: [.frontLeft, .frontCenter]) == [[1, 0], [0, h]])
        // Every channel of 5.1 but the LFE is heard on it, the right side through the centre.
        #expect(gains(nil, channels: 6, to: 2, deviceMap: [.frontLeft, .frontCenter]) == [[1, 0, 0, 0, h, 0], [0, h, 1, 0, 0, 0.5]])
    }

    /// A map for another count is ignored (WAVE's order), and a mono device gets the average
    /// whatever its one channel is called.
    @Test func mapsThatDoNotApply() {
        #expect(gains(nil, channels: 6, to: 6, deviceMap: [.frontRight, .frontLeft]) == gains(nil, channels: 6, to: 6))
        #expect(mapping(nil, channels: 2, to: 1, deviceMap: [.unknown]) == nil)
        #expect(gains(nil, channels: 6, to: 1, deviceMap: [.frontCenter]) == gains(nil, channels: 6, to: 1))
    }

    /// Speakers WAVE has no name for get nothing; a missing one folds as on any device; a sound
    /// that reaches none of them is left to the mixer, never silenced.
    @Test func speakersWAVEHasNoNameFor() {
        // ALSA's wide speakers have no WAVE name: the device reports them unknown.
        let wide: [Speaker] = [.frontLeft, .frontRight, .unknown, .unknown, .frontCenter, .lowFrequency]
        #expect(gains(nil, channels: 6, to: 6, deviceMap: wide)
            == [[1, 0, 0, 0, h, 0], [0, 1, 0, 0, 0, h], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0]])
        #expect(mapping(nil, channels: 2, to: 2, deviceMap: [.unknown, .unknown]) == nil)
    }

    /// A dropped channel's infinite sample does not become NaN (0 × ∞) in the others.
    @Test func zeroGainsAreSkipped() throws {
        let matrix = try #require(mapping(nil, channels: 6, to: 2))
        let frame: [Float] = [0.25, -0.25, 0.5, .infinity, 0, 0]
        var output = [Float](repeating: .nan, count: 2)
        matrix.apply(frame, frames: 1, into: &output)
        #expect(output == [0.25 + h * 0.5, -0.25 + h * 0.5])
    }

    /// What the decoder reads from ffmpeg's 5.1 WAV (back surrounds, by its mask) and CAF (side,
    /// by its MPEG_5_1_A tag), downmixed, is BS.775 computed from the decoded channels.
    @Test(arguments: ["wav", "caf"])
    func applyOnAnFFmpegFivePointOneFile(container: String) throws {
        let folder = TemporaryDirectory("matrix")
        let path = folder.file("5.1.\(container)")
        let tones = (0..<6).map { "0.3*sin(2*PI*\(220 + 110 * $0)*t)" }.joined(separator: "|")
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=\(tones):s=8000:d=0.1",
            "-af", "aformat=channel_layouts=5.1", "-c:a", container == "wav" ? "pcm_s16le" : "pcm_f32le", "-y", path,
        ])
        let decoder = try SoundDecoder(path: path)
        #expect(decoder.description.channelLayout != nil)
        let decoded = try decoder.readAll()
        let frames = decoded.count / 6
        let matrix = try #require(ChannelMatrix.mapping(
            from: decoder.description.channelLayout, channelCount: 6, to: 2))
        var output = [Float](repeating: .nan, count: frames * 2)
        matrix.apply(decoded, frames: frames, into: &output)

        var expected: [Float] = []
        for frame in 0..<frames {
            let (l, r, c, ls, rs) = (decoded[frame * 6], decoded[frame * 6 + 1], decoded[frame * 6 + 2], decoded[frame * 6 + 4], decoded[frame * 6 + 5])
            expected += [l + h * c + h * ls, r + h * c + h * rs]
        }
        #expect(frames == 800)
        #expect(SampleComparison.maximumDifference(output, expected).map { $0 < 1e-6 } == true)
        #expect(output.contains { abs($0) > 0.5 })  // not silence
    }
}
