import CALSA

/// The sample formats noti-play writes to a device, best first: float keeps the mix exact,
/// then 32-bit, then 16-bit integers for devices that take nothing else.
public enum DeviceSampleFormat: String, Sendable, CaseIterable {
    case float32 = "FLOAT"
    case int32 = "S32"
    case int16 = "S16"

    public var bytesPerSample: Int {
        switch self {
        case .float32, .int32: 4
        case .int16: 2
        }
    }

    /// Native byte order: the render thread writes samples as the CPU holds them.
    var alsaFormat: snd_pcm_format_t {
        #if _endian(little)
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .int32: SND_PCM_FORMAT_S32_LE
        case .int16: SND_PCM_FORMAT_S16_LE
        }
        #else
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_BE
        case .int32: SND_PCM_FORMAT_S32_BE
        case .int16: SND_PCM_FORMAT_S16_BE
        }
        #endif
    }
}
