import CALSA
import NotiPlayDecoder
import CALSASupport

/// What noti-play asks of a playback device.
public struct PCMRequest: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Formats to try, in order; the first the device takes wins.
    public var formats: [DeviceSampleFormat]
    /// Period length: the render thread wakes once per period.
    public var periodMicroseconds: Int
    /// Periods in the device buffer: more survive scheduling hiccups, fewer stop sooner.
    public var periodsPerBuffer: Int
    /// Whether a device that cannot play `sampleRate` may open at its nearest rate (a `hw:` device
    /// at its one rate): the caller then converts every sound to the rate agreed.
    public var acceptsNearestRate: Bool
    /// What a sound server is told of the stream (ALSA devices take none).
    public var properties: StreamProperties
    /// Open a sound server's stream at the rate its graph runs at rather than `sampleRate`
    /// (with `acceptsNearestRate`): the caller converts each sound once, and the server
    /// converts nothing again. ALSA devices take `sampleRate` as before.
    public var prefersServerRate: Bool

    /// The period asked for, in frames at `rate` (at least 16).
    func periodFrames(atRate rate: Int) -> Int { max(16, rate * periodMicroseconds / 1_000_000) }

    public init(
        sampleRate: Int, channelCount: Int, formats: [DeviceSampleFormat] = DeviceSampleFormat.allCases,
        periodMicroseconds: Int = 10_000, periodsPerBuffer: Int = 3, acceptsNearestRate: Bool = false,
        properties: StreamProperties = StreamProperties(), prefersServerRate: Bool = false
    ) {
        self.properties = properties
        self.prefersServerRate = prefersServerRate && acceptsNearestRate
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.formats = formats
        self.periodMicroseconds = periodMicroseconds
        self.periodsPerBuffer = periodsPerBuffer
        self.acceptsNearestRate = acceptsNearestRate
        self.properties = properties
    }
}

/// What the device agreed to.
public struct NegotiatedFormat: Sendable, Equatable {
    public var device: String
    /// The backend that opened it.
    public var backend: AudioBackend
    /// How the stream reaches the speakers, in words for `--verbose` and a daemon's log:
    /// "PipeWire 0.3.65, natively", "PulseAudio 16.1, directly", "ALSA 'default' through the pulse plugin".
    public var route: String
    public var sampleRate: Int
    public var channelCount: Int
    public var sampleFormat: DeviceSampleFormat
    public var periodFrames: Int
    public var bufferFrames: Int
    /// The speaker of each channel, in the device's order, where the device says (ALSA's channel
    /// map, the server's channel map); nil where it does not, and then the channels are taken to
    /// be in WAVE's order for their count.
    public var speakers: [ChannelLayout.Speaker]?

    public var bytesPerFrame: Int { channelCount * sampleFormat.bytesPerSample }

    /// For each backend's open (and the tests' scripted devices, which stand in for ALSA).
    package init(
        device: String, backend: AudioBackend = .alsa, route: String? = nil, sampleRate: Int, channelCount: Int,
        sampleFormat: DeviceSampleFormat, periodFrames: Int, bufferFrames: Int, speakers: [ChannelLayout.Speaker]? = nil
    ) {
        self.device = device
        self.backend = backend
        self.route = route ?? "\(backend) '\(device)'"
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleFormat = sampleFormat
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.speakers = speakers
    }
}

/// An open ALSA playback PCM: a thin typed layer over `snd_pcm_*`.
///
/// Set up on the caller's thread; after `configure`, only the render thread writes to it.
final class PCMDevice {
    let name: String
    private var handle: OpaquePointer?

    /// Opens `name` for playback, non-blocking, and keeps it so: the open fails at once where
    /// another program holds the device ("Device or resource busy") instead of hanging, and no
    /// write ever blocks. The render thread waits for room itself, a bounded wait at a time
    /// (`waitForRoom`, `ALSAStream.write`): ALSA's blocking write waits in poll without a
    /// timeout, for ever where the wake-up never comes (pipewire-alsa lost one under load; a
    /// sound server stopped behind its plugin sends none), and its thread could never be ended.
    init(name: String) throws(DeviceError) {
        self.name = name
        var pcm: OpaquePointer?
        try withALSADiagnosticsCaptured { () throws(DeviceError) in
            // A notification's role, where the plugin takes one from its definition (pipewire-alsa).
            try check(noti_alsa_open_playback(&pcm, name, SND_PCM_NONBLOCK, "Notification"), device: name, "cannot open")
        }
        handle = pcm
        try withALSADiagnosticsCaptured { () throws(DeviceError) in
            let descriptors = snd_pcm_poll_descriptors_count(pcm)
            try check(descriptors, device: name, "cannot wait for room")
            guard descriptors > 0 && descriptors <= Int32(NOTI_ALSA_MOST_POLL_DESCRIPTORS) else {
                throw DeviceError(alsaDevice: name, "cannot wait for room",
                                  reason: "it has \(descriptors) poll descriptors; noti-play waits on 1 to \(NOTI_ALSA_MOST_POLL_DESCRIPTORS)")
            }
        }
    }

    deinit { close() }

    /// Hands the `snd_pcm_t` over to the caller, who closes it with `PCMDevice.close(_:)`; the
    /// render thread calls ALSA on it directly, never touching this object (or its reference count).
    func takeHandle() -> OpaquePointer {
        defer { handle = nil }
        return handle!
    }

    func close() {
        if let handle { Self.close(handle) }
        handle = nil
    }

    /// Closes the PCM. Plugins flush on close (the file plugin writes what it buffered), so a
    /// reader that went away raises SIGPIPE on the closing thread: kept from the process.
    static func close(_ pcm: OpaquePointer) {
        BrokenPipeSignal.suppressed { withALSADiagnosticsCaptured { _ = snd_pcm_close(pcm) } }
    }

    /// Negotiates rate, channels, sample format, period and buffer with the device.
    func configure(_ request: PCMRequest) throws(DeviceError) -> NegotiatedFormat {
        try withALSADiagnosticsCaptured { () throws(DeviceError) in try negotiate(request) }
    }

    private func negotiate(_ request: PCMRequest) throws(DeviceError) -> NegotiatedFormat {
        var hw: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hw), device: name, "cannot allocate parameters")
        defer { snd_pcm_hw_params_free(hw) }
        try check(snd_pcm_hw_params_any(handle, hw), device: name, "offers no configuration")
        try check(snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED), device: name,
                  "does not take interleaved writes")

        guard let format = request.formats.first(where: { snd_pcm_hw_params_test_format(handle, hw, $0.alsaFormat) == 0 }) else {
            throw DeviceError(alsaDevice: name, "cannot set the sample format",
                            reason: "it takes none of \(request.formats.map(\.rawValue).joined(separator: ", "))")
        }
        try check(snd_pcm_hw_params_set_format(handle, hw, format.alsaFormat), device: name, "cannot set \(format.rawValue) samples")

        var channels = UInt32(request.channelCount)
        try check(snd_pcm_hw_params_set_channels_near(handle, hw, &channels), device: name,
                  "cannot play \(request.channelCount) channel(s)")

        var rate = UInt32(request.sampleRate)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(handle, hw, &rate, &direction), device: name,
                  "cannot play \(request.sampleRate) Hz")
        guard Int(rate) == request.sampleRate || request.acceptsNearestRate else {
            // The engine does not resample: playing at another rate would change pitch and speed.
            throw DeviceError(alsaDevice: name, "cannot play \(request.sampleRate) Hz",
                            reason: "its nearest rate is \(rate) Hz (a 'plughw:' device, or a sound server, converts rates)")
        }

        var period = snd_pcm_uframes_t(request.periodFrames(atRate: Int(rate)))
        try check(snd_pcm_hw_params_set_period_size_near(handle, hw, &period, &direction), device: name,
                  "cannot set a period of \(period) frames")
        var buffer = period * snd_pcm_uframes_t(max(2, request.periodsPerBuffer))
        try check(snd_pcm_hw_params_set_buffer_size_near(handle, hw, &buffer), device: name,
                  "cannot set a buffer of \(buffer) frames")
        try check(snd_pcm_hw_params(handle, hw), device: name, "rejected the configuration")
        // The device may round: read back what it chose.
        try check(snd_pcm_hw_params_get_period_size(hw, &period, &direction), device: name, "has no period size")
        try check(snd_pcm_hw_params_get_buffer_size(hw, &buffer), device: name, "has no buffer size")

        var sw: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&sw), device: name, "cannot allocate parameters")
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(handle, sw), device: name, "has no software parameters")
        // Start as soon as one period is written, not when the buffer is full: a sound starts
        // one period after the first decode instead of a whole buffer later.
        try check(snd_pcm_sw_params_set_start_threshold(handle, sw, period), device: name, "cannot set the start threshold")
        try check(snd_pcm_sw_params_set_avail_min(handle, sw, period), device: name, "cannot set the wake-up size")
        try check(snd_pcm_sw_params(handle, sw), device: name, "rejected the software parameters")

        // Known only once hw_params has fixed the channel count.
        let positions = ChannelPosition.currentMap(of: handle, channelCount: Int(channels))
            ?? ChannelPosition.impliedMap(of: handle, channelCount: Int(channels))
        return NegotiatedFormat(
            device: name, backend: .alsa, route: Self.route(of: handle, name: name), sampleRate: Int(rate),
            channelCount: Int(channels), sampleFormat: format, periodFrames: Int(period), bufferFrames: Int(buffer),
            speakers: positions?.map(\.speaker))
    }

    /// How the PCM reaches the speakers, for `--verbose`: "ALSA 'default' through the pulse plugin".
    private static func route(of pcm: OpaquePointer?, name: String) -> String {
        switch noti_alsa_server_plugin(pcm) {
        case Int32(NOTI_ALSA_PULSE_PLUGIN.rawValue): "ALSA '\(name)' through the pulse plugin"
        case Int32(NOTI_ALSA_PIPEWIRE_PLUGIN.rawValue): "ALSA '\(name)' through the pipewire plugin"
        default: "ALSA '\(name)'"
        }
    }

    // The real-time half: static functions on the raw handle, so the render thread goes through
    // this wrapper without touching the object (or its reference count). Each captures ALSA's
    // diagnostics on the render thread as the setup does on the worker's.

    /// Writes interleaved frames, as many as there is room for (the PCM never blocks).
    /// Returns the frames written, -EAGAIN where there was no room, or a negative ALSA error
    /// code (-EPIPE is an underrun).
    @inline(__always)
    static func write(_ pcm: OpaquePointer, _ frames: UnsafeRawPointer, count: Int) -> Int {
        withALSADiagnosticsCaptured { snd_pcm_writei(pcm, frames, snd_pcm_uframes_t(count)) }
    }

    /// Waits, `milliseconds` at most, until the device has room for a period (`periodFrames`, the
    /// avail_min `configure` sets) or an error to report, or `interrupt` is readable: a
    /// `noti_alsa_wait_result`, or a negated errno.
    @inline(__always)
    static func wait(_ pcm: OpaquePointer, interrupt: Int32, periodFrames: Int, milliseconds: Int32) -> Int32 {
        withALSADiagnosticsCaptured { noti_alsa_wait(pcm, interrupt, UInt(periodFrames), milliseconds) }
    }

    /// Frames of room now, by the device's own pointer (not its wake-up), or a negative ALSA
    /// error code.
    @inline(__always)
    static func room(_ pcm: OpaquePointer) -> Int {
        withALSADiagnosticsCaptured { snd_pcm_avail_update(pcm) }
    }

    /// Prepares the device again after an underrun (-EPIPE) or a suspend (-ESTRPIPE), and lets
    /// an interrupted call (-EINTR) be retried. Returns 0; -EAGAIN while the device is still
    /// suspended (try again after a wait); or the error when it cannot be recovered.
    ///
    /// -EPIPE is an underrun only if the PCM is in XRUN, -ESTRPIPE a suspend only if it is
    /// SUSPENDED: a plugin writing into a pipe whose reader went away (ALSA's file plugin) also
    /// returns -EPIPE, and "recovering" from that would write into the broken pipe forever.
    /// Not snd_pcm_recover: it sleeps a second at a time for as long as a device stays suspended.
    @inline(__always)
    static func recover(_ pcm: OpaquePointer, _ code: Int32) -> Int32 {
        withALSADiagnosticsCaptured {
            let state = snd_pcm_state(pcm)
            switch code {
            case -EINTR: return 0
            case -EPIPE where state == SND_PCM_STATE_XRUN: return snd_pcm_prepare(pcm)
            case -ESTRPIPE where state == SND_PCM_STATE_SUSPENDED:
                let resumed = snd_pcm_resume(pcm)
                return resumed == -EAGAIN || resumed == 0 ? resumed : snd_pcm_prepare(pcm)
            default: return code
            }
        }
    }

    /// Makes a drained or stopped device ready to start again on the next write.
    @inline(__always)
    static func prepare(_ pcm: OpaquePointer) { withALSADiagnosticsCaptured { _ = snd_pcm_prepare(pcm) } }

    /// Lets what was written play out, then stops the device (`noti_alsa_play_out`): it waits
    /// while the device's delay shrinks, a step of `stepMilliseconds` at most, gives up once it
    /// has not shrunk for `DeviceDeadlines.stall`, and ends at once when `interrupt` is readable.
    @inline(__always)
    static func playOut(_ pcm: OpaquePointer, interrupt: Int32, rate: UInt32, stepMilliseconds: Int32) {
        withALSADiagnosticsCaptured {
            noti_alsa_play_out(pcm, interrupt, rate, stepMilliseconds, Int32(DeviceDeadlines.stall * 1000))
        }
    }

    /// Stops at once, discarding what has not been played.
    @inline(__always)
    static func drop(_ pcm: OpaquePointer) { withALSADiagnosticsCaptured { _ = snd_pcm_drop(pcm) } }
}
