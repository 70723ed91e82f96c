import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// How the command and the library treat the PipeWire device a user names, and what they say
/// about a server that is not there or does not answer: a sink that is not there is refused
/// (never played on the default sink instead), messages name the socket really tried, and
/// `--list-devices` says which server it could not ask. Part of PipeWireTests (serialized, on
/// the rig's private PipeWire).
extension PipeWireTests {
    /// No server where PIPEWIRE_REMOTE says: the line names the socket looked for (in the
    /// runtime folder, under PIPEWIRE_REMOTE's name), not "pipewire-0" nor "Host is down".
    @Test func noServerNamesTheSocketLookedFor() throws {
        let empty = folder.file("no-server-run")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let path = try tone("no-server.wav", seconds: 0.2)
        let environment = ["XDG_RUNTIME_DIR": empty, "PIPEWIRE_RUNTIME_DIR": empty, "PIPEWIRE_REMOTE": "elsewhere-7"]
        let command = try TestTools.run(TestTools.notiPlay, [path, "--backend", "pipewire"], environment: environment)
        #expect(command.status == 1, "\(command.stderr)")
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("(PipeWire): cannot open: no PipeWire server at \(empty)/elsewhere-7"), "\(command.stderr)")
        #expect(!command.stderr.contains("pipewire-0") && !command.stderr.contains("Host is down"), "\(command.stderr)")
    }
}

