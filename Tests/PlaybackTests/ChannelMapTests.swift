import CALSA
import Foundation
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// Devices that order their channels their own way: `noti-play FILE` through ALSA's `file` plugin
/// in front of a `null` device that reports a channel map, as a `hw:` 5.1 device does
/// (FL FR RL RR FC LFE). Each speaker must get the sound's channel for it, by name.
@Suite struct ChannelMapTests {
    let folder = TemporaryDirectory("chmap")

    /// A `hw:` 5.1 device's order (HDA, USB): its rear pair before its centre and LFE.
    static let hardwareFiveOne = "FL,FR,RL,RR,FC,LFE"
    /// For each channel of that device, the channel of a WAVE-ordered 5.1 sound
    /// (FL FR FC LFE BL BR) it must play: FL, FR, BL (ALSA's RL), BR (RR), FC, LFE.
    static let hardwareFiveOneSources = [0, 1, 4, 5, 2, 3]

    /// 0.3 s at 44.1 kHz, each channel its own tone.
    static let tones = (0..<6).map { "0.5*sin(2*PI*\(330 + 110 * $0)*t)" }.joined(separator: "|")

    /// A 5.1 WAV as ffmpeg writes it: WAVE_FORMAT_EXTENSIBLE, channel mask 0x3F.
    func fiveOneWAV(_ name: String) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=\(Self.tones):s=44100:d=0.3",
            "-af", "aformat=channel_layouts=5.1", "-c:a", "pcm_f32le", "-y", path,
        ])
        let description = try SoundDecoder(path: path).description
        #expect(description.channelLayout == ChannelLayout.standard(channelCount: 6), "not a 5.1 mask")
        return path
    }

    /// A 6-channel WAVE_FORMAT_PCM file, which names no speakers: Python's `wave` writes only that.
    func sixChannelsWithoutLayout(_ name: String) throws -> String {
        let path = folder.file(name)
        let script = """
            import math, struct, sys, wave
            w = wave.open(sys.argv[1], "wb")
            w.setnchannels(6); w.setsampwidth(2); w.setframerate(44100)
            w.writeframes(b"".join(struct.pack("<6h", *[round(16000 * math.sin(2 * math.pi * (330 + 110 * c) * n / 44100))
                                                        for c in range(6)]) for n in range(13230)))
            w.close()
            """
        try TestTools.runChecked("python3", ["-c", script, path])
        #expect(try SoundDecoder(path: path).description.channelLayout == nil)
        return path
    }

    func play(_ path: String, _ arguments: [String] = [], tap: ALSATap) throws -> ProcessResult {
        try TestTools.run(TestTools.notiPlay, [path] + arguments, environment: tap.environment)
    }

    func captured(_ tap: ALSATap) throws -> [Float] {
        try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Frame by frame, device channel `i` holding the sound's channel `sources[i]`.
    func reordered(_ samples: [Float], _ sources: [Int]) -> [Float] {
        let channels = sources.count
        return (0..<(samples.count / channels)).flatMap { frame in sources.map { samples[frame * channels + $0] } }
    }

    /// The six channels differ, so a speaker holding the wrong one cannot pass.
    func expectDistinctChannels(_ samples: [Float]) {
        let channels = (0..<6).map { channel in stride(from: channel, to: samples.count, by: 6).map { samples[$0] } }
        #expect(Set(channels.map { $0.map(\.bitPattern) }).count == 6)
    }

    @Test func aFiveOneWAVReachesEachSpeakerByNameOnAHardwareOrderedDevice() throws {
        let path = try fiveOneWAV("five-one.wav")
        let tap = try ALSATap(in: folder, name: "hw-order", channelMap: Self.hardwareFiveOne)
        let result = try play(path, tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try SoundDecoder(path: path).readAll()
        expectDistinctChannels(decoded)
        // The centre on FC (device channel 4), the surrounds on RL RR (2, 3), not the other way.
        #expect(try captured(tap) == reordered(decoded, Self.hardwareFiveOneSources))
    }

    /// A file that names no speakers is in WAVE's order for its count (6: 5.1), placed by name too.
    @Test func aSoundWithoutLayoutPlaysInWAVEOrderByName() throws {
        let path = try sixChannelsWithoutLayout("six-plain.wav")
        let tap = try ALSATap(in: folder, name: "hw-order-plain", channelMap: Self.hardwareFiveOne)
        let result = try play(path, tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try SoundDecoder(path: path).readAll()
        expectDistinctChannels(decoded)
        #expect(try captured(tap) == reordered(decoded, Self.hardwareFiveOneSources))
    }

    /// A device whose map is WAVE's order gets the decoded samples as they are, bit for bit.
    @Test func aDeviceInWAVEOrderGetsTheSamplesUnchanged() throws {
        let path = try fiveOneWAV("wave-order.wav")
        let tap = try ALSATap(in: folder, name: "wave-order", channelMap: "FL,FR,FC,LFE,RL,RR")
        let result = try play(path, ["--critical", "--volume", "0.8"], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try SoundDecoder(path: path).readAll().map { $0 * 0.8 }
        #expect(try captured(tap).map(\.bitPattern) == expected.map(\.bitPattern))
    }

    /// A map with a channel ALSA cannot name is no map: the channels stay in WAVE's order.
    @Test func aMapWithUnknownPositionsIsNotTrusted() throws {
        let path = try fiveOneWAV("unknown-map.wav")
        let tap = try ALSATap(in: folder, name: "unknown-map", channelMap: "FL,FR,UNKNOWN,UNKNOWN,FC,LFE")
        let result = try play(path, ["--verbose"], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("noti-play: device:      default: FLOAT, 44100 Hz, 6 channel(s)\n"), "\(result.stderr)")
        #expect(try captured(tap).map(\.bitPattern) == (try SoundDecoder(path: path).readAll()).map(\.bitPattern))
    }

    /// A map that names one speaker twice (FL FL) says nothing of where the other channel goes:
    /// it is no map either. Placed by it, a stereo sound's right channel found no FR and was
    /// dropped, the device's second channel silent; untrusted, both channels play as they are.
    @Test func aMapNamingASpeakerTwiceIsNotTrusted() throws {
        let path = folder.file("stereo.wav")
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=0.5*sin(2*PI*440*t)|0.3*sin(2*PI*660*t):s=44100:d=0.2",
            "-c:a", "pcm_f32le", "-y", path,
        ])
        let tap = try ALSATap(in: folder, name: "twice-fl", channelMap: "FL,FL")
        let result = try play(path, ["--verbose"], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("noti-play: device:      default: FLOAT, 44100 Hz, 2 channel(s)\n"), "\(result.stderr)")
        let captured = try captured(tap)
        let right = stride(from: 1, to: captured.count, by: 2).reduce(Float(0)) { $0 + captured[$1] * captured[$1] }
        #expect(right > 0, "the right channel was silenced")
        #expect(captured.map(\.bitPattern) == (try SoundDecoder(path: path).readAll()).map(\.bitPattern))
    }

    /// --verbose names the speakers in the device's order where its map names them.
    @Test func verboseNamesTheDevicesSpeakers() throws {
        let path = try fiveOneWAV("verbose.wav")
        let mapped = try play(path, ["--verbose"], tap: try ALSATap(in: folder, name: "verbose-map", channelMap: Self.hardwareFiveOne))
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(mapped.stderr.contains("noti-play: device:      default: FLOAT, 44100 Hz, 6 channel(s) FL FR RL RR FC LFE\n"),
                "\(mapped.stderr)")
        let plain = try play(path, ["--verbose"], tap: try ALSATap(in: folder, name: "verbose-plain"))
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("noti-play: device:      default: FLOAT, 44100 Hz, 6 channel(s)\n"), "\(plain.stderr)")
    }

    /// Every position ALSA names (but UNKNOWN and NA, which are no speaker) is one of ours, under
    /// ALSA's own name, so a device's map is never dropped for a name spelt differently here.
    @Test func everyALSAPositionIsKnownByItsName() {
        let names = (UInt32(SND_CHMAP_MONO.rawValue)...UInt32(SND_CHMAP_LAST.rawValue)).compactMap { value in
            snd_pcm_chmap_name(snd_pcm_chmap_position(rawValue: value)).map { String(cString: $0) }
        }
        #expect(names.count == ChannelPosition.allCases.count)
        #expect(Set(names) == Set(ChannelPosition.allCases.map(\.rawValue)))
    }
}
