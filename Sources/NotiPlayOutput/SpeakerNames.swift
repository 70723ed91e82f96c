import NotiPlayDecoder

extension ChannelLayout.Speaker {
    /// The speaker a sound server or ALSA means by its short name: ALSA's channel maps, PipeWire's
    /// SPA positions and PulseAudio's streams as noti-play's C backends name them ("FL", "RL",
    /// "LFE"). ALSA's and SPA's "rear" speakers are WAVE's "back" ones. `.unknown` for a speaker
    /// WAVE has no name for (a wide, a high or a second LFE speaker). A mono channel is WAVE's
    /// centre, as a one-channel WAVE file's is.
    package init(shortName: String) {
        self = switch shortName {
        case "FL": .frontLeft
        case "FR": .frontRight
        case "FC", "MONO": .frontCenter
        case "LFE": .lowFrequency
        case "RL": .backLeft
        case "RR": .backRight
        case "RC": .backCenter
        case "SL": .sideLeft
        case "SR": .sideRight
        case "FLC": .frontLeftOfCenter
        case "FRC": .frontRightOfCenter
        case "TC": .topCenter
        case "TFL": .topFrontLeft
        case "TFC": .topFrontCenter
        case "TFR": .topFrontRight
        case "TRL": .topBackLeft
        case "TRC": .topBackCenter
        case "TRR": .topBackRight
        default: .unknown
        }
    }

    /// The short name of a speaker, as `init(shortName:)` reads it ("?" for `.unknown`).
    package var shortName: String {
        switch self {
        case .frontLeft: "FL"
        case .frontRight: "FR"
        case .frontCenter: "FC"
        case .lowFrequency: "LFE"
        case .backLeft: "RL"
        case .backRight: "RR"
        case .backCenter: "RC"
        case .sideLeft: "SL"
        case .sideRight: "SR"
        case .frontLeftOfCenter: "FLC"
        case .frontRightOfCenter: "FRC"
        case .topCenter: "TC"
        case .topFrontLeft: "TFL"
        case .topFrontCenter: "TFC"
        case .topFrontRight: "TFR"
        case .topBackLeft: "TRL"
        case .topBackCenter: "TRC"
        case .topBackRight: "TRR"
        case .unknown: "?"
        }
    }
}
