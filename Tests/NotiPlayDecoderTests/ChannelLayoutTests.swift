import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

typealias Speaker = ChannelLayout.Speaker
private let L = Speaker.frontLeft, R = Speaker.frontRight, C = Speaker.frontCenter, LFE = Speaker.lowFrequency
private let BL = Speaker.backLeft, BR = Speaker.backRight, SL = Speaker.sideLeft, SR = Speaker.sideRight

/// StreamDescription.channelLayout: what WAVE_FORMAT_EXTENSIBLE masks and CAF `chan` chunks say,
/// in files ffmpeg and sox wrote and in files spelled out here, hostile ones included.
@Suite("Channel layouts")
struct ChannelLayoutTests {

    let folder = TemporaryDirectory("layout")

    /// 0.05 s of a tone per channel in ffmpeg's `layout`, written in `container` as 16-bit PCM.
    func ffmpegFile(_ layout: String, _ container: String, extra: [String] = []) throws -> String {
        let path = folder.file("\(layout.filter { $0.isLetter || $0.isNumber })-\(extra.count).\(container)")
        let codec = container == "wav" ? "pcm_s16le" : "pcm_s16be"
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=0.05:r=8000", "-af", "aformat=channel_layouts=\(layout)",
            "-c:a", codec,
        ] + extra + ["-y", path])
        return path
    }

    static func layout(_ path: String) throws -> ChannelLayout? {
        try SoundDecoder(path: path).description.channelLayout
    }

    // MARK: Files other tools wrote

    /// ffmpeg writes WAVE_FORMAT_EXTENSIBLE, with its layout's mask, for more than two channels,
    /// and plain WAVE_FORMAT_PCM (no layout) for mono and stereo.
    @Test(arguments: [
        ("mono", nil), ("stereo", nil),
        ("quad", [L, R, BL, BR]),
        ("5.1", [L, R, C, LFE, BL, BR]),
        ("5.1(side)", [L, R, C, LFE, SL, SR]),
        ("7.1", [L, R, C, LFE, BL, BR, SL, SR]),
        ("7.1(wide)", [L, R, C, LFE, BL, BR, .frontLeftOfCenter, .frontRightOfCenter]),
    ] as [(String, [Speaker]?)])
    func ffmpegWAV(layout: String, speakers: [Speaker]?) throws {
        #expect(try Self.layout(try ffmpegFile(layout, "wav")) == speakers.map(ChannelLayout.init))
    }

    /// ffmpeg's CAF muxer (5.1) writes a layout tag, chosen from its channel set (5.1 and
    /// 5.1(side) both as MPEG_5_1_A; 7.1 as MPEG_7_1_C, although its channels 4 and 5 are back
    /// and 6 and 7 side, the reverse of the tag's order). The layout is what the tag says.
    @Test(arguments: [
        ("mono", 0x0064_0001, [C]),
        ("stereo", 0x0065_0002, [L, R]),
        ("quad", 0x0084_0004, [L, R, SL, SR]),  // ITU_2_2
        ("5.1", 0x0079_0006, [L, R, C, LFE, SL, SR]),
        ("5.1(side)", 0x0079_0006, [L, R, C, LFE, SL, SR]),
        ("7.1", 0x0080_0008, [L, R, C, LFE, SL, SR, BL, BR]),
    ] as [(String, UInt32, [Speaker])])
    func ffmpegCAF(layout: String, tag: UInt32, speakers: [Speaker]) throws {
        let path = try ffmpegFile(layout, "caf")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let chan = try #require(CAFChunks.chunks(bytes).first { $0.id == "chan" })
        let writtenTag = bytes[chan.bodyOffset..<chan.bodyOffset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(writtenTag == tag, "ffmpeg wrote tag 0x\(String(writtenTag, radix: 16))")
        #expect(try Self.layout(path) == ChannelLayout(speakers: speakers))
    }

    /// sox writes a mask for more than two channels in WAV (its default order) and no `chan` in CAF.
    @Test func soxFiles() throws {
        func sox(_ name: String, channels: Int) throws -> String {
            let path = folder.file(name)
            try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", String(channels), "-b", "16", path, "synth", "0.05", "sine", "440"])
            return path
        }
        #expect(try Self.layout(try sox("sox6.wav", channels: 6)) == ChannelLayout(speakers: [L, R, C, LFE, BL, BR]))
        #expect(try Self.layout(try sox("sox4.wav", channels: 4)) == ChannelLayout(speakers: [L, R, BL, BR]))
        #expect(try Self.layout(try sox("sox6.caf", channels: 6)) == nil)
        #expect(try Self.layout(try sox("sox6.aiff", channels: 6)) == nil)
    }

    @Test func aiffSaysNothing() throws {
        #expect(try Self.layout(try ffmpegFile("5.1", "aiff")) == nil)
    }

    /// `noti-play info` does not show layouts (issue 12): its output for 5.1 files is what it was.
    @Test func infoPrintsWhatItPrintedBefore() throws {
        let wav = try ffmpegFile("5.1", "wav", extra: ["-fflags", "+bitexact", "-flags:a", "+bitexact"])
        let caf = try ffmpegFile("5.1", "caf", extra: ["-fflags", "+bitexact", "-c:a", "pcm_f32le"])
        #expect(try Self.layout(wav) != nil)
        #expect(try Self.layout(caf) != nil)
        let result = try TestTools.run(TestTools.notiPlay, ["info", wav, caf])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == """
            File:            \(wav)
            Container:       WAVE
            Encoding:        Linear PCM, 16-bit signed integer, little-endian [LEI16]
            Sample rate:     8000 Hz
            Channels:        6
            Bits per sample: 16
            Frames:          400
            Duration:        0.050 s
            Packets:         400 × 12 bytes, 1 frame each
            Audio data:      4800 bytes at offset 68

            File:            \(caf)
            Container:       CAF
            Encoding:        Linear PCM, 32-bit float, little-endian [LEF32]
            Sample rate:     8000 Hz
            Channels:        6
            Bits per sample: 32
            Frames:          400
            Duration:        0.050 s
            Packets:         400 × 24 bytes, 1 frame each
            Audio data:      9600 bytes at offset 92

            """)
        let json = try TestTools.run(TestTools.notiPlay, ["info", "--json", caf]).stdoutText
        #expect(json == """
            [
              {"file": "\(caf)", "container": "CAFF", "encoding": "LEF32", "encodingDescription": "Linear PCM, 32-bit float, little-endian", \
            "sampleRate": 8000, "channels": 6, "bitsPerSample": 32, "frames": 400, "duration": 0.050000, "packets": 400, \
            "bytesPerPacket": 24, "framesPerPacket": 1, "primingFrames": 0, "dataOffset": 92, "dataBytes": 9600, "truncated": false, "notes": []}
            ]

            """)
    }

    // MARK: WAVE channel masks

    static func wav(channels: UInt16, mask: UInt32, bigEndian: Bool = false) -> [UInt8] {
        let builder = WAVBuilder(bigEndian ? .rifx : .riff)
        let samples = int16Samples((0..<Int16(channels)).map { $0 * 100 }, builder.order)
        return builder.extensibleFmt(subFormat: WAVBuilder.pcm, channels: channels, bits: 16, channelMask: mask).data(samples).bytes
    }

    /// Channel i is the mask's i-th set bit; reserved bits (18 to 31) are no speaker we know.
    @Test(arguments: [
        (6, 0x60F, [L, R, C, LFE, SL, SR]),
        (3, 0x0002_0104, [C, .backCenter, .topBackRight]),
        (2, 0x8000_0001, [L, .unknown]),
        (4, 0x3, [L, R, .unknown, .unknown]),  // fewer bits than channels: the rest unknown
        (2, 0x3F, [L, R]),  // more bits than channels: the first ones
        (1, 0xFFFF_FFFF, [L]),
    ] as [(UInt16, UInt32, [Speaker])])
    func maskBits(channels: UInt16, mask: UInt32, speakers: [Speaker]) throws {
        let (description, samples) = try decode(Self.wav(channels: channels, mask: mask))
        #expect(description.channelLayout == ChannelLayout(speakers: speakers))
        #expect(samples == full16((0..<Int(channels)).map { $0 * 100 }))
    }

    @Test func maskZeroNamesNoSpeakers() throws {
        #expect(try decode(Self.wav(channels: 6, mask: 0)).description.channelLayout == nil)
    }

    @Test func rifxMaskIsBigEndian() throws {
        #expect(try decode(Self.wav(channels: 4, mask: 0x33, bigEndian: true)).description.channelLayout
            == ChannelLayout(speakers: [L, R, BL, BR]))
    }

    @Test func plainPCMSaysNothing() throws {
        let file = WAVBuilder().fmt(channels: 6, bits: 16).data(int16Samples([1, 2, 3, 4, 5, 6], .little)).bytes
        #expect(try decode(file).description.channelLayout == nil)
    }

    /// The standard orders the player assumes for files without a layout.
    @Test func standardOrders() {
        #expect(ChannelLayout.standard(channelCount: 1)?.speakers == [C])
        #expect(ChannelLayout.standard(channelCount: 2)?.speakers == [L, R])
        #expect(ChannelLayout.standard(channelCount: 3)?.speakers == [L, R, C])
        #expect(ChannelLayout.standard(channelCount: 4)?.speakers == [L, R, BL, BR])
        #expect(ChannelLayout.standard(channelCount: 5)?.speakers == [L, R, C, BL, BR])
        #expect(ChannelLayout.standard(channelCount: 6)?.speakers == [L, R, C, LFE, BL, BR])
        #expect(ChannelLayout.standard(channelCount: 7)?.speakers == [L, R, C, LFE, .backCenter, SL, SR])
        #expect(ChannelLayout.standard(channelCount: 8)?.speakers == [L, R, C, LFE, BL, BR, SL, SR])
        for count in [0, 9, 64] { #expect(ChannelLayout.standard(channelCount: count) == nil) }
    }

    // MARK: CAF `chan` chunks

    /// A CAF file of `channels` 16-bit channels, one frame, with the chunks `before` adds ahead of
    /// `data` and those `after` adds behind it.
    static func caf(
        channels: UInt32, before: (CAFBuilder) -> CAFBuilder = { $0 }, after: (CAFBuilder) -> CAFBuilder = { $0 }
    ) -> [UInt8] {
        let samples = int16Samples((0..<Int16(channels)).map { 1000 - $0 * 300 }, .big)
        return after(before(CAFBuilder().lpcm(bits: 16, channels: channels)).data(samples)).bytes
    }

    static func cafLayout(channels: UInt32, _ chan: (CAFBuilder) -> CAFBuilder) throws -> ChannelLayout? {
        try decode(caf(channels: channels, before: chan)).description.channelLayout
    }

    /// Each tag's number and channel order, as CoreAudioTypes lists them (its number is the
    /// tag's index << 16 | its channel count).
    @Test(arguments: [
        ("Mono", 100, [C]), ("Stereo", 101, [L, R]), ("StereoHeadphones", 102, [L, R]), ("MatrixStereo", 103, [L, R]),
        ("Quadraphonic", 108, [L, R, BL, BR]),
        ("MPEG_3_0_A", 113, [L, R, C]), ("MPEG_3_0_B", 114, [C, L, R]),
        ("MPEG_4_0_A", 115, [L, R, C, .backCenter]), ("MPEG_4_0_B", 116, [C, L, R, .backCenter]),
        ("MPEG_5_0_A", 117, [L, R, C, SL, SR]), ("MPEG_5_0_B / AudioUnit_5_0", 118, [L, R, SL, SR, C]),
        ("MPEG_5_0_C", 119, [L, C, R, SL, SR]), ("MPEG_5_0_D", 120, [C, L, R, SL, SR]),
        ("MPEG_5_1_A / AudioUnit_5_1", 121, [L, R, C, LFE, SL, SR]), ("MPEG_5_1_B", 122, [L, R, SL, SR, C, LFE]),
        ("MPEG_5_1_C", 123, [L, C, R, SL, SR, LFE]), ("MPEG_5_1_D", 124, [C, L, R, SL, SR, LFE]),
        ("MPEG_6_1_A / AudioUnit_6_1", 125, [L, R, C, LFE, SL, SR, .backCenter]),
        ("MPEG_7_1_A", 126, [L, R, C, LFE, SL, SR, .frontLeftOfCenter, .frontRightOfCenter]),
        ("MPEG_7_1_C / AudioUnit_7_1", 128, [L, R, C, LFE, SL, SR, BL, BR]),
        ("ITU_2_1", 131, [L, R, .backCenter]), ("ITU_2_2", 132, [L, R, SL, SR]),
        ("AudioUnit_6_0", 139, [L, R, SL, SR, C, .backCenter]), ("AudioUnit_7_0", 140, [L, R, SL, SR, C, BL, BR]),
        ("AC3_1_0_1", 149, [C, LFE]),
        ("WAVE_5_1_B", 187, [L, R, C, LFE, BL, BR]), ("WAVE_7_1", 189, [L, R, C, LFE, BL, BR, SL, SR]),
    ] as [(String, UInt32, [Speaker])])
    func layoutTag(name: String, index: UInt32, speakers: [Speaker]) throws {
        let tag = index << 16 | UInt32(speakers.count)
        #expect(try Self.cafLayout(channels: UInt32(speakers.count)) { $0.chan(tag: tag) } == ChannelLayout(speakers: speakers), "\(name)")
    }

    @Test("DiscreteInOrder, Unknown, unlisted tags and a tag for other channels say nothing", arguments: [
        147 << 16 | 6, 0xFFFF_0006, 200 << 16 | 6, 121 << 16 | 5, 0x0065_0002, 0xFFFF_FFFF,
    ] as [UInt32])
    func tagsWithoutALayout(tag: UInt32) throws {
        #expect(try Self.cafLayout(channels: 6) { $0.chan(tag: tag) } == nil)
    }

    @Test func channelBitmapIsAWAVEMask() throws {
        #expect(try Self.cafLayout(channels: 6) { $0.chan(tag: 1 << 16, bitmap: 0x3F) } == ChannelLayout(speakers: [L, R, C, LFE, BL, BR]))
        #expect(try Self.cafLayout(channels: 2) { $0.chan(tag: 1 << 16, bitmap: 0) } == nil)
    }

    @Test func channelDescriptionsByLabel() throws {
        let labels: [UInt32] = [3, 1, 2, 33, 34, 4, 0, 0xFFFF_FFFF, 100, 10, 11, 38, 39, 9, 12]
        let expected: [Speaker] = [C, L, R, BL, BR, LFE, .unknown, .unknown, .unknown, SL, SR, L, R, .backCenter, .topCenter]
        #expect(try Self.cafLayout(channels: UInt32(labels.count)) { $0.chan(tag: 0, labels: labels) } == ChannelLayout(speakers: expected))
    }

}

/// Hostile `chan` chunks: no layout, and the sound decodes exactly as without them, in the
/// library and through `noti-play info` under a 256 MiB address-space limit.
extension MalformedInputTests {
    static let stereoCAF = ChannelLayoutTests.caf(channels: 2)
    static let stereoChanBody = CAFBuilder.chanBody(tag: 0, labels: [1, 2])

    static let channelLayouts: [Case] = [
        .tolerated("chan of 0 bytes", ChannelLayoutTests.caf(channels: 2) { $0.chunk("chan", []) }),
        .tolerated("chan of 11 bytes", ChannelLayoutTests.caf(channels: 2) { $0.chunk("chan", Array(stereoChanBody.prefix(11))) }),
        .tolerated("chan whose last description is cut", ChannelLayoutTests.caf(channels: 2) { $0.chunk("chan", Array(stereoChanBody.dropLast(1))) }),
        .tolerated("chan with 2^31 descriptions", ChannelLayoutTests.caf(channels: 2) { $0.chan(tag: 0, labels: [1, 2], descriptionCount: 1 << 31) }),
        .tolerated("chan after data with 2^32-1 descriptions claiming 2^62 bytes",
                   ChannelLayoutTests.caf(channels: 2, after: { $0.chan(tag: 0, labels: [1, 2], descriptionCount: .max, claimedSize: 1 << 62) })),
        .tolerated("chan with 3 descriptions for 2 channels", ChannelLayoutTests.caf(channels: 2) { $0.chan(tag: 0, labels: [1, 2, 3]) }),
        .tolerated("chan with 1 description for 2 channels", ChannelLayoutTests.caf(channels: 2) { $0.chan(tag: 0, labels: [1]) }),
        .tolerated("chan for 6 channels on 2", ChannelLayoutTests.caf(channels: 2) { $0.chan(tag: 0x0079_0006) }),
        .tolerated("two chan chunks", ChannelLayoutTests.caf(channels: 2) { $0.chan(tag: 0x0065_0002).chan(tag: 0x0065_0002) }),
        .tolerated("chan after data cut by the end of the file", Array(ChannelLayoutTests.caf(channels: 2, after: { $0.chan(tag: 0, labels: [1, 2]) }).dropLast(20))),
    ]

    @Test("hostile chan chunks: no layout, the sound unchanged", arguments: channelLayouts)
    func hostileChannelLayouts(_ c: Case) throws {
        try check(c)
        #expect(try SoundDecoder(bytes: c.bytes).description.channelLayout == nil)
        #expect(try decode(c.bytes).samples == (try decode(Self.stereoCAF).samples))
    }

    /// A `chan` of size -1 (to the end of the file) after the audio holds what is there.
    @Test func chanToTheEndOfTheFile() throws {
        let file = ChannelLayoutTests.caf(channels: 2, after: { $0.chan(tag: 0x0065_0002, claimedSize: -1) })
        try check(.tolerated("chan of size -1", file))
        #expect(try SoundDecoder(bytes: file).description.channelLayout == ChannelLayout(speakers: [.frontLeft, .frontRight]))
        #expect(try decode(file).samples == (try decode(Self.stereoCAF).samples))
    }

    /// NaN coordinates are never read: the labels decide.
    @Test func chanWithNaNCoordinates() throws {
        let file = ChannelLayoutTests.caf(channels: 2) { $0.chan(tag: 0, labels: [1, 2], coordinates: .nan) }
        try check(.tolerated("chan with NaN coordinates", file))
        #expect(try SoundDecoder(bytes: file).description.channelLayout == ChannelLayout(speakers: [.frontLeft, .frontRight]))
        #expect(try decode(file).samples == (try decode(Self.stereoCAF).samples))
    }
}
