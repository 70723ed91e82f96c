import CPipeWireOutput
import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#endif

/// A PipeWire server played natively, through libpipewire (loaded on first use: pipewire_output.h).
///
/// Why natively rather than through pipewire-pulse or pipewire-alsa: the stream carries the
/// application's properties and a notification's role, opens at the graph's own rate (the
/// player converts a sound once, and the server never does), and a stop replaces what the
/// stream has not yet given the server with a fade, so it is heard within a graph cycle and the
/// fade however long the stream's buffer.
extension PCMBackend {
    /// Streams on the PipeWire server `remote` (nil: libpipewire's default, PIPEWIRE_REMOTE or
    /// pipewire-0). Device `default` is wherever the session manager sends a notification
    /// stream; `pipewire:NAME` is the sink whose node.name is NAME. `serverQueue`: the command's
    /// deep ring (a stop takes it back), in graph cycles of at most `longestCycleMicroseconds`.
    package static func pipeWire(remote: String? = nil, serverQueue: ServerQueue? = nil) -> PCMBackend {
        PCMBackend(
            kind: .pipewire,
            serves: { device in
                AudioBackend.server(namedBy: device) == .pipewire || (device == "default" && PipeWireSurvey.serverSocketExists(remote: remote))
            },
            devices: { () throws(DeviceError) in try pipeWireSinks(remote: remote) }
        ) { name, request throws(DeviceError) in
            var request = request
            if let serverQueue {
                request.periodMicroseconds = min(serverQueue.requestMicroseconds, longestCycleMicroseconds)
                request.periodsPerBuffer = max(2, serverQueue.microseconds / request.periodMicroseconds)
            }
            return try openPipeWire(name, request, remote: remote)
        }
    }

    /// The longest graph cycle (node.latency) the command asks for: a stop is heard within one
    /// cycle and its fade, and that is to stay within 25 ms. (A deeper ring costs nothing of that:
    /// what it holds is taken back.)
    static let longestCycleMicroseconds = 20_000

    /// The sinks of the server, as `pipewire:NAME`; none where no server is there. A server whose
    /// socket is there but which does not answer in time is an error: `--list-devices` says so.
    @Sendable private static func pipeWireSinks(remote: String?) throws(DeviceError) -> [PlaybackDevice] {
        guard PipeWireSurvey.serverSocketExists(remote: remote) else { return [] }
        let survey: PipeWireSurvey
        do throws(DeviceError) {
            survey = try PipeWireSurvey.take(remote: remote)
        } catch where error.code == -ETIMEDOUT {
            throw error
        } catch {
            return []
        }
        let server = PlaybackDevice(name: "default", description: "the PipeWire server's default sink (PipeWire \(survey.version), \(survey.clockRate) Hz)")
        return [server] + survey.sinks.map { PlaybackDevice(name: "pipewire:" + $0.name, description: "PipeWire: " + $0.description) }
    }

    /// How long connecting and opening may take: beyond it the player's own open deadline has
    /// given up anyway.
    static let pipeWireConnectMilliseconds: Int32 = 10_000

    private static func openPipeWire(_ name: String, _ request: PCMRequest, remote: String?) throws(DeviceError) -> PCMStream {
        // Chosen explicitly (--backend pipewire), PipeWire still plays only what it can name: a
        // device of ALSA's or PulseAudio's is refused, not quietly replaced by the default sink.
        if let refusal = AudioBackend.pipewire.refusal(of: name) {
            throw DeviceError(device: name, backend: .pipewire, "cannot open", code: -ENODEV, reason: refusal)
        }
        guard let format = request.formats.first else {
            throw DeviceError(device: name, backend: .pipewire, "cannot set the sample format", reason: "no format was asked for")
        }
        // A caller that converts every sound to the rate agreed gets the graph's, so that the
        // server resamples nothing; otherwise the server converts the rate asked for.
        let rate = request.prefersServerRate ? 0 : min(request.sampleRate, Int(NOTI_PW_MAX_RATE))
        guard rate == 0 || rate == request.sampleRate || request.acceptsNearestRate else {
            throw DeviceError(device: name, backend: .pipewire, "cannot play \(request.sampleRate) Hz",
                              reason: "a sound server plays 1 to \(NOTI_PW_MAX_RATE) Hz")
        }
        // As a device agrees to its nearest count: the player maps a wider sound onto these.
        let channels = min(max(1, request.channelCount), Int(NOTI_PW_MAX_CHANNELS))
        let wire: noti_pw_format = switch format {
        case .float32: NOTI_PW_FLOAT32
        case .int32: NOTI_PW_S32
        case .int16: NOTI_PW_S16
        }
        let target = AudioBackend.pipewire.node(namedBy: name)
        let period = max(1, request.periodMicroseconds)
        var agreed = noti_pw_agreed()
        var code: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let stream = withCStrings(serverProperties(request.properties)) { properties in
            withOptionalCString(remote) { remote in
                withOptionalCString(target) { target in
                    var pipeWireRequest = noti_pw_request(
                        remote: remote, target: target, rate: UInt32(rate),
                        channels: UInt32(channels), positions: nil, format: Int32(wire.rawValue),
                        buffer_us: UInt32(clamping: period * max(2, request.periodsPerBuffer)), period_us: UInt32(clamping: period),
                        properties: properties)
                    return noti_pw_open(&pipeWireRequest, &agreed, pipeWireConnectMilliseconds, &message, message.count, &code)
                }
            }
        }
        guard let stream else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw DeviceError(device: name, backend: .pipewire, "cannot open", code: code, reason: reason)
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
            device: name, backend: .pipewire,
            route: "PipeWire \(version), natively" + (target.map { ", sink \($0)" } ?? "") + (remote.map { ", server \($0)" } ?? ""),
            sampleRate: Int(agreed.rate), channelCount: channels, sampleFormat: format,
            periodFrames: Int(agreed.period_frames), bufferFrames: Int(agreed.buffer_frames),
            speakers: speakers.allSatisfy { $0 == .unknown } ? nil : speakers)
        return PCMStream(handle: UnsafeMutableRawPointer(stream), format: negotiated, calls: pipeWireCalls)
    }

    /// The stream's properties as PipeWire names them (a user's PIPEWIRE_PROPS still overrides
    /// them: libpipewire applies it after these).
    static func serverProperties(_ properties: StreamProperties) -> [String] {
        [
            "media.type", "Audio", "media.category", "Playback", "media.role", "Notification",
            "application.name", properties.applicationName, "application.id", properties.applicationID,
            "node.name", properties.applicationID, "media.name", properties.mediaName ?? properties.applicationName,
        ]
    }

    private static let pipeWireCalls = PCMStreamCalls(
        write: { stream, frames, count in noti_pw_write(OpaquePointer(stream), frames, count) },
        waitForRoom: { stream, milliseconds in noti_pw_wait_for_room(OpaquePointer(stream), milliseconds) },
        prepare: { stream in noti_pw_prepare(OpaquePointer(stream)) },
        drain: { stream in noti_pw_drain(OpaquePointer(stream)) },
        drop: { stream in noti_pw_drop(OpaquePointer(stream)) },
        takeBack: { stream, frames in noti_pw_take_back(OpaquePointer(stream), frames) },
        interrupt: { stream, closing in noti_pw_interrupt(OpaquePointer(stream), closing ? 1 : 0) },
        lost: { stream in noti_pw_lost(OpaquePointer(stream)) },
        close: { stream in noti_pw_close(OpaquePointer(stream)) })
}

/// What a PipeWire server says of itself: for `--verbose` and `--list-devices`.
package struct PipeWireSurvey: Sendable {
    /// The server's version ("0.3.65").
    package var version: String
    /// Its name, the socket's ("pipewire-0").
    package var name: String
    /// The rate its graph runs at now.
    package var clockRate: Int
    /// Its sinks, by node.name (what `--device` takes) and node.description.
    package var sinks: [PlaybackDevice]

    /// Whether a server's socket is there (PIPEWIRE_REMOTE, PIPEWIRE_RUNTIME_DIR, XDG_RUNTIME_DIR):
    /// no connection, nothing loaded.
    package static func serverSocketExists(remote: String? = nil) -> Bool {
        withOptionalCString(remote) { noti_pw_server_socket_exists($0) != 0 }
    }

    /// Where the server's socket is (or was looked for first, where it is not there): messages
    /// name this, not the remote's name.
    package static func socketPath(remote: String? = nil) -> String {
        var path = [CChar](repeating: 0, count: 256)
        withOptionalCString(remote) { noti_pw_server_socket_path($0, &path, path.count) }
        return path.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Asks the server (connecting: up to `timeoutMilliseconds`).
    package static func take(remote: String? = nil, timeoutMilliseconds: Int32 = 2_000) throws(DeviceError) -> PipeWireSurvey {
        var sinks: [PlaybackDevice] = []
        var server = noti_pw_server()
        var message = [CChar](repeating: 0, count: 256)
        let result = withUnsafeMutablePointer(to: &sinks) { sinks in
            withOptionalCString(remote) { remote in
                noti_pw_survey(remote, timeoutMilliseconds, &server, { user, name, description in
                    guard let user, let name, let description else { return }
                    user.assumingMemoryBound(to: [PlaybackDevice].self).pointee
                        .append(PlaybackDevice(name: String(cString: name), description: String(cString: description)))
                }, sinks, &message, message.count)
            }
        }
        guard result == 0 else {
            let said = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let reason = result == -ETIMEDOUT
                ? "the PipeWire server at \(socketPath(remote: remote)) did not answer within \(seconds(timeoutMilliseconds)) s" : said
            throw DeviceError(device: "default", backend: .pipewire, "cannot ask the server", code: result, reason: reason)
        }
        func text<T>(_ field: T) -> String { withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
        return PipeWireSurvey(version: text(server.version), name: text(server.name), clockRate: Int(server.clock_rate), sinks: sinks)
    }
}

/// Milliseconds as seconds for a message: "2", "0.5".
private func seconds(_ milliseconds: Int32) -> String {
    milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
}

/// `strings` as a NULL-terminated array of C strings, for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
