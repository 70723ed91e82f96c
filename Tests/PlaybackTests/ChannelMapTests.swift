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

    func play(_ path: String, _ arguments: [String] = [], tap: ALSATap) throws -> ProcessResult {
        try TestTools.run(TestTools.notiPlay, [path] + arguments, environment: tap.environment)
    }

    func captured(_ tap: ALSATap) throws -> [Float] {
        try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
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
