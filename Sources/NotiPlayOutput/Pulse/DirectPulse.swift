import CALSA
import CPulseOutput
#if canImport(Glibc)
import Glibc
#endif

/// A device ALSA's configuration sends to its PulseAudio plugin (`type pulse`: the default on a
/// desktop with PulseAudio or PipeWire's PulseAudio service), played through libpulse directly.
///
/// Why: through the plugin every period costs the plugin's and libpulse's threads a round of
/// wake-ups, and what the plugin has queued cannot be taken back (its `snd_pcm_rewind` claims
/// success and takes nothing), so a stop is heard only after the whole buffer, which must
/// therefore stay short (20 ms × 3: 62–69 ms of CPU for a 10 s sound). Directly, the server's
/// queue can be replaced from the position heard (`noti_pulse_take_back`), so the buffer can be
/// half a second (19–26 ms of CPU, aplay's 17.5–19) and a stop still ends within its fade.
/// Measured by `scripts/pulse-study`; README "Measured".
extension PCMBackend {
    /// ALSA, except for a device whose ALSA definition is PulseAudio's plugin, which is played
    /// through libpulse on the server and sink that definition names, with a queue of
    /// `serverQueue.microseconds` asked for in requests of `serverQueue.requestMicroseconds`
    /// (nil: the request's periods). Where libpulse cannot be loaded, or the server is
    /// PipeWire's, ALSA's plugin plays it as before.
    package static func alsaWithDirectPulse(serverQueue: (microseconds: Int, requestMicroseconds: Int)?) -> PCMBackend {
        PCMBackend { name, request throws(ALSAError) in
            guard let route = PulseRoute(device: name), noti_pulse_load() == nil else { return try openALSA(name, request) }
            var request = request
            if let serverQueue {
                request.periodMicroseconds = serverQueue.requestMicroseconds
                request.periodsPerBuffer = max(1, serverQueue.microseconds / max(1, serverQueue.requestMicroseconds))
            }
            if let stream = try openPulse(name, route, request) { return stream }
            return try openALSA(name, request)
        }
    }

    /// How long a connection to the server may take: beyond it the player's own open deadline
    /// has given up anyway.
    static let pulseConnectMilliseconds: Int32 = 10_000

    /// The stream, or nil where the server is not PulseAudio itself (PipeWire's service: its
    /// queue cannot be taken back, so ALSA's plugin plays it with a short buffer, as before).
    private static func openPulse(_ name: String, _ route: PulseRoute, _ request: PCMRequest) throws(ALSAError) -> PCMStream? {
        guard let format = request.formats.first else {
            throw ALSAError(device: name, "cannot set the sample format", reason: "no format was asked for")
        }
        // The server resamples, but plays at most PA_RATE_MAX.
        let rate = min(request.sampleRate, Int(NOTI_PULSE_MAX_RATE))
        guard rate == request.sampleRate || request.acceptsNearestRate else {
            throw ALSAError(device: name, "cannot play \(request.sampleRate) Hz", reason: "its nearest rate is \(rate) Hz")
        }
        guard (1...32).contains(request.channelCount) else {
            throw ALSAError(device: name, "cannot play \(request.channelCount) channel(s)", reason: "a sound server plays 1 to 32")
        }
        let period = request.periodFrames(atRate: rate)
        let wire: noti_pulse_format = switch format {
        case .float32: NOTI_PULSE_FLOAT32
        case .int32: NOTI_PULSE_S32
        case .int16: NOTI_PULSE_S16
        }
        var agreed = noti_pulse_agreed()
        var code: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let stream = withOptionalCString(route.server) { server in
            withOptionalCString(route.sink) { sink in
                var pulseRequest = noti_pulse_request(
                    server: server, sink: sink, rate: UInt32(rate), channels: UInt32(request.channelCount),
                    format: Int32(wire.rawValue), buffer_frames: UInt32(period * max(2, request.periodsPerBuffer)),
                    period_frames: UInt32(period))
                return noti_pulse_open(&pulseRequest, &agreed, pulseConnectMilliseconds, &message, message.count, &code)
            }
        }
        guard let stream else {
            if code == -EPROTONOSUPPORT { return nil }
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ALSAError(device: name, "cannot open", reason: reason)
        }
        let speakers = withUnsafeBytes(of: agreed.speakers) { raw in
            raw.bindMemory(to: UnsafePointer<CChar>?.self).prefix(request.channelCount).map { name in
                name.flatMap { ChannelPosition(rawValue: String(cString: $0)) }
            }
        }
        let negotiated = NegotiatedFormat(
            device: name, sampleRate: rate, channelCount: request.channelCount, sampleFormat: format,
            periodFrames: Int(agreed.period_frames), bufferFrames: Int(agreed.buffer_frames),
            speakers: speakers.contains(nil) ? nil : speakers.compactMap { $0 }, soundServer: route.description)
        return PCMStream(handle: UnsafeMutableRawPointer(stream), format: negotiated, calls: pulseCalls)
    }

    private static let pulseCalls = PCMStreamCalls(
        write: { stream, frames, count in noti_pulse_write(OpaquePointer(stream), frames, count) },
        waitForRoom: { stream, milliseconds in noti_pulse_wait_for_room(OpaquePointer(stream), milliseconds) },
        recover: { stream, code in noti_pulse_recover(OpaquePointer(stream), code) },
        prepare: { stream in noti_pulse_prepare(OpaquePointer(stream)) },
        drain: { stream in noti_pulse_drain(OpaquePointer(stream)) },
        drop: { stream in noti_pulse_drop(OpaquePointer(stream)) },
        takeBack: { stream, frames in noti_pulse_take_back(OpaquePointer(stream), frames) },
        interrupt: { stream, closing in noti_pulse_interrupt(OpaquePointer(stream), closing ? 1 : 0) },
        close: { stream in noti_pulse_close(OpaquePointer(stream)) })
}

/// Where ALSA's definition of a PCM sends it when that is PulseAudio's plugin: its `server` and
/// `device` (the sink), nil for the defaults, as the plugin itself reads them. Read from the
/// configuration without opening the device, on the opener's thread.
struct PulseRoute {
    var server: String?
    var sink: String?

    init?(device: String) {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let top else { return nil }
        defer { snd_config_unref(top) }
        var name = device
        // `pcm.!default "pulse"` names another definition: followed a few steps, no further.
        for _ in 0..<4 {
            var definition: OpaquePointer?
            guard snd_config_search_definition(top, "pcm", name, &definition) >= 0, let definition else { return nil }
            defer { snd_config_delete(definition) }
            if snd_config_get_type(definition) == SND_CONFIG_TYPE_STRING {
                var alias: UnsafePointer<CChar>?
                guard snd_config_get_string(definition, &alias) >= 0, let alias else { return nil }
                name = String(cString: alias)
                continue
            }
            guard ALSAConfiguration.text(of: definition, at: "type") == "pulse" else { return nil }
            server = ALSAConfiguration.text(of: definition, at: "server")
            sink = ALSAConfiguration.text(of: definition, at: "device")
            return
        }
        return nil
    }

    /// For `--verbose`: "PulseAudio" and what the definition named.
    var description: String {
        "PulseAudio" + (sink.map { ", sink \($0)" } ?? "") + (server.map { ", server \($0)" } ?? "")
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
