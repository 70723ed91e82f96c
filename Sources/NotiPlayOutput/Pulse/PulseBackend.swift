import CPulseOutput
import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#endif

/// A PulseAudio server, played through libpulse directly (loaded on first use).
///
/// Why directly rather than through ALSA's pulse plugin: the stream carries its properties
/// (media.role event, the host's application name and id) where the plugin takes them only from
/// the environment; and what is queued on the server can be taken back (`noti_pulse_take_back`),
/// which the plugin cannot (its `snd_pcm_rewind` claims success and takes nothing), so the
/// command's queue can be half a second (19–26 ms of CPU for a 10 s sound, aplay's 17.5–19;
/// through the plugin 62–69) and a stop still ends within its fade. Measured by
/// `scripts/measure/pulse-study`; README "Measured".
///
/// Only PulseAudio itself: PipeWire's PulseAudio service cannot rewind, so the open refuses it
/// (-EPROTONOSUPPORT) and the backend table goes on to the next backend, with that backend's own
/// short buffer.
extension PCMBackend {
    /// `serverQueue`: the queue asked of the server, in requests of `requestMicroseconds` (the
    /// command's one sound); nil: the request's own periods (a daemon's next sound must not wait
    /// behind a deep queue).
    package static func pulse(serverQueue: ServerQueue?) -> PCMBackend {
        PCMBackend(kind: .pulse, serves: { device in PulseRoute(device: device) != nil }, devices: pulseSinks) { name, request throws(DeviceError) in
            if let refusal = AudioBackend.pulse.refusal(of: name) {
                throw DeviceError(device: name, backend: .pulse, "cannot open", code: -ENODEV, reason: refusal)
            }
            guard let route = PulseRoute(device: name) else {
                throw DeviceError(device: name, backend: .pulse, "cannot open", code: -ENOENT, reason: "no PulseAudio server is configured or running")
            }
            if let failure = noti_pulse_load() {
                throw DeviceError(device: name, backend: .pulse, "cannot open", code: -ENOENT, reason: String(cString: failure))
            }
            var request = request
            if let serverQueue {
                request.periodMicroseconds = serverQueue.requestMicroseconds
                request.periodsPerBuffer = max(1, serverQueue.microseconds / max(1, serverQueue.requestMicroseconds))
            }
            return try openPulse(name, route, request)
        }
    }

    /// The sinks of the PulseAudio server `default` reaches, as `pulse:NAME`; none where no
    /// PulseAudio server is there (PipeWire's service lists its sinks as PipeWire's).
    @Sendable private static func pulseSinks() throws(DeviceError) -> [PlaybackDevice] {
        guard let route = PulseRoute(device: "default") else { return [] }
        final class Found { var devices: [PlaybackDevice] = [] }
        let found = Found()
        let status = withOptionalCString(route.server) { server in
            noti_pulse_list_sinks(server, 2_000, { name, description, user in
                guard let name, let user else { return }
                let found = Unmanaged<Found>.fromOpaque(user).takeUnretainedValue()
                found.devices.append(PlaybackDevice(
                    name: "pulse:" + String(cString: name),
                    description: "PulseAudio: " + (description.map { String(cString: $0) } ?? "")))
            }, Unmanaged.passUnretained(found).toOpaque())
        }
        // A server that is there but did not answer is said; one that is not, or is not
        // PulseAudio itself, has nothing to list.
        if status == -ETIMEDOUT {
            throw DeviceError(device: "default", backend: .pulse, "cannot ask the server", code: status,
                              reason: "the PulseAudio server did not answer within 2 s")
        }
        return status == 0 ? found.devices : []
    }

    /// How long a connection to the server may take: beyond it the player's own open deadline
    /// has given up anyway.
    static let pulseConnectMilliseconds: Int32 = 10_000

    private static func openPulse(_ name: String, _ route: PulseRoute, _ request: PCMRequest) throws(DeviceError) -> PCMStream {
        guard let format = request.formats.first else {
            throw DeviceError(device: name, backend: .pulse, "cannot set the sample format", reason: "no format was asked for")
        }
        // The server resamples, but plays at most PA_RATE_MAX. 0 asks for the server's own rate.
        let asked = request.prefersServerRate ? 0 : min(request.sampleRate, Int(NOTI_PULSE_MAX_RATE))
        guard asked == request.sampleRate || request.acceptsNearestRate else {
            throw DeviceError(device: name, backend: .pulse, "cannot play \(request.sampleRate) Hz", reason: "its nearest rate is \(asked) Hz")
        }
        // The server's most (PA_CHANNELS_MAX), as a device agrees to its nearest channel count
        // (ALSA's set_channels_near): the player maps a wider sound onto the channels agreed.
        let channels = min(max(1, request.channelCount), Int(NOTI_PULSE_MAX_CHANNELS))
        let period = request.periodFrames(atRate: asked == 0 ? Int(NOTI_PULSE_REFERENCE_RATE) : asked)
        let wire: noti_pulse_format = switch format {
        case .float32: NOTI_PULSE_FLOAT32
        case .int32: NOTI_PULSE_S32
        case .int16: NOTI_PULSE_S16
        }
        var agreed = noti_pulse_agreed()
        var code: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let properties = request.properties
        let stream = withOptionalCString(route.server) { server in
            withOptionalCString(route.sink) { sink in
                withOptionalCString(properties.applicationName as String?) { applicationName in
                    withOptionalCString(properties.applicationID as String?) { applicationID in
                        withOptionalCString(properties.mediaName) { mediaName in
                            withOptionalCString("event") { role in
                                var pulseRequest = noti_pulse_request(
                                    server: server, sink: sink, rate: UInt32(asked), channels: UInt32(channels),
                                    format: Int32(wire.rawValue), buffer_frames: UInt32(period * max(2, request.periodsPerBuffer)),
                                    period_frames: UInt32(period), application_name: applicationName,
                                    application_id: applicationID, media_name: mediaName, role: role)
                                return noti_pulse_open(&pulseRequest, &agreed, pulseConnectMilliseconds, &message, message.count, &code)
                            }
                        }
                    }
                }
            }
        }
        guard let stream else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw DeviceError(device: name, backend: .pulse, "cannot open", code: code, reason: reason)
        }
        let speakers = withUnsafeBytes(of: agreed.speakers) { raw in
            raw.bindMemory(to: UnsafePointer<CChar>?.self).prefix(channels).map { name in
                name.map { ChannelLayout.Speaker(shortName: String(cString: $0)) } ?? .unknown
            }
        }
        let version = withUnsafeBytes(of: agreed.server_version) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let negotiated = NegotiatedFormat(
            device: name, backend: .pulse, route: "PulseAudio \(version), directly" + route.description,
            sampleRate: Int(agreed.rate), channelCount: channels, sampleFormat: format,
            periodFrames: Int(agreed.period_frames), bufferFrames: Int(agreed.buffer_frames),
            speakers: speakers.allSatisfy { $0 == .unknown } ? nil : speakers)
        return PCMStream(handle: UnsafeMutableRawPointer(stream), format: negotiated, calls: pulseCalls)
    }

    private static let pulseCalls = PCMStreamCalls(
        write: { stream, frames, count in noti_pulse_write(OpaquePointer(stream), frames, count) },
        waitForRoom: { stream, milliseconds in noti_pulse_wait_for_room(OpaquePointer(stream), milliseconds) },
        prepare: { stream in noti_pulse_prepare(OpaquePointer(stream)) },
        drain: { stream in noti_pulse_drain(OpaquePointer(stream)) },
        drop: { stream in noti_pulse_drop(OpaquePointer(stream)) },
        takeBack: { stream, frames in noti_pulse_take_back(OpaquePointer(stream), frames) },
        interrupt: { stream, closing in noti_pulse_interrupt(OpaquePointer(stream), closing ? 1 : 0) },
        close: { stream in noti_pulse_close(OpaquePointer(stream)) })
}

/// Which PulseAudio server and sink a device name means, as far as can be told without
/// connecting: `pulse:SINK` a sink of the default server; `default` the server and sink that
/// ALSA's definition names where it is PulseAudio's plugin (`type pulse`, the desktop default),
/// else the default server where one is configured (PULSE_SERVER) or its socket is there.
/// nil: nothing says a PulseAudio server is there.
struct PulseRoute {
    var server: String?
    var sink: String?

    init?(device: String) {
        if AudioBackend.server(namedBy: device) == .pulse {
            sink = AudioBackend.pulse.node(namedBy: device)
            return
        }
        guard device == "default" else { return nil }
        if let definition = ALSAConfiguration.serverPlugin(of: device), definition.type == "pulse" {
            server = definition.text(at: "server")
            sink = definition.text(at: "device")
            return
        }
        guard Self.defaultServerIsThere() else { return nil }
    }

    /// PULSE_SERVER, or the socket of a server of the user's ($PULSE_RUNTIME_PATH/native,
    /// $XDG_RUNTIME_DIR/pulse/native). A stat, no connection.
    private static func defaultServerIsThere() -> Bool {
        if let server = getenv("PULSE_SERVER"), server.pointee != 0 { return true }
        let sockets = [getenv("PULSE_RUNTIME_PATH").map { String(cString: $0) + "/native" },
                       getenv("XDG_RUNTIME_DIR").map { String(cString: $0) + "/pulse/native" }]
        return sockets.contains { path in
            guard let path else { return false }
            var status = stat()
            return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
        }
    }

    /// For `--verbose`: what the route named, after "PulseAudio 16.1, directly".
    var description: String {
        (sink.map { ", sink \($0)" } ?? "") + (server.map { ", server \($0)" } ?? "")
    }
}
