import CALSA
import CALSASupport
import NotiPlayDecoder

/// The speaker a device channel feeds, as ALSA's channel maps name it (`snd_pcm_chmap_position`;
/// the raw values are ALSA's own short names, as `snd_pcm_chmap_name` gives them). Devices order
/// their channels their own way: a `hw:` 5.1 device is FL FR RL RR FC LFE, not WAVE's
/// FL FR FC LFE RL RR. ALSA's "rear" speakers are WAVE's "back" ones.
public enum ChannelPosition: String, Sendable, CaseIterable {
    /// The speaker in the engine's vocabulary (`.unknown` where WAVE has no name for it).
    var speaker: ChannelLayout.Speaker { ChannelLayout.Speaker(shortName: rawValue) }

    case mono = "MONO"
    case frontLeft = "FL", frontRight = "FR", rearLeft = "RL", rearRight = "RR"
    case frontCenter = "FC", lowFrequency = "LFE", sideLeft = "SL", sideRight = "SR", rearCenter = "RC"
    case frontLeftCenter = "FLC", frontRightCenter = "FRC", rearLeftCenter = "RLC", rearRightCenter = "RRC"
    case frontLeftWide = "FLW", frontRightWide = "FRW"
    case frontLeftHigh = "FLH", frontCenterHigh = "FCH", frontRightHigh = "FRH"
    case topCenter = "TC", topFrontLeft = "TFL", topFrontRight = "TFR", topFrontCenter = "TFC"
    case topRearLeft = "TRL", topRearRight = "TRR", topRearCenter = "TRC"
    case topFrontLeftCenter = "TFLC", topFrontRightCenter = "TFRC", topSideLeft = "TSL", topSideRight = "TSR"
    case leftLowFrequency = "LLFE", rightLowFrequency = "RLFE"
    case bottomCenter = "BC", bottomLeftCenter = "BLC", bottomRightCenter = "BRC"

    /// The speakers of an open stream's `channelCount` channels, as the device's channel map
    /// says (after hw_params); nil when it gives none, or one that cannot be trusted to place a
    /// sound: a map for another count, an UNKNOWN or NA channel, a driver-specific position, a
    /// phase-inverted channel, or a speaker named twice (FL FL: the sound's FR would find no
    /// speaker and be dropped).
    static func currentMap(of pcm: OpaquePointer?, channelCount: Int) -> [ChannelPosition]? {
        guard channelCount > 0 else { return nil }
        var raw = [UInt32](repeating: 0, count: channelCount)
        let count = noti_alsa_channel_map(pcm, &raw, UInt32(channelCount))
        guard Int(count) == channelCount else { return nil }
        var positions: [ChannelPosition] = []
        for value in raw {
            guard value & ~UInt32(SND_CHMAP_POSITION_MASK) == 0,  // DRIVER_SPEC, PHASE_INVERSE
                  let name = snd_pcm_chmap_name(snd_pcm_chmap_position(value)),  // NULL: past ALSA's last
                  let position = ChannelPosition(rawValue: String(cString: name))  // not UNKNOWN or NA
            else { return nil }
            positions.append(position)
        }
        return Set(positions).count == positions.count ? positions : nil
    }

    /// The speakers of a stream whose device gives no map but is known to place channels in an
    /// order of its own: PulseAudio's ALSA plugin hands its server ALSA's order (FL FR RL RR FC
    /// LFE SL SR, as `pactl list sink-inputs` shows), where 3 and 7 channels end in an "aux"
    /// speaker; nil for those counts and any other device.
    static func impliedMap(of pcm: OpaquePointer?, channelCount: Int) -> [ChannelPosition]? {
        let order: [ChannelPosition] = [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight]
        guard [1, 2, 4, 5, 6, 8].contains(channelCount), noti_alsa_server_plugin(pcm) == Int32(NOTI_ALSA_PULSE_PLUGIN.rawValue) else { return nil }
        return channelCount == 1 ? [.mono] : Array(order.prefix(channelCount))
    }
}
