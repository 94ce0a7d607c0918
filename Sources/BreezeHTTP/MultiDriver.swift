//===----------------------------------------------------------------------===//
//
// This source file is part of the breeze-agent open source project
//
// Copyright (c) 2026 the breeze-agent project authors
// Licensed under the Apache License, Version 2.0 (see LICENSE)
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CCurl
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One `get` waiting for its answer. Its continuation is resumed exactly once: by the driver
/// thread (done, failed, cancelled while queued or running) or at submission when the task was
/// already cancelled.
final class PendingRequest: Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, CurlError>, Never>

    let request: HTTPRequest
    private struct State {
        var continuation: Continuation?
        var cancelled = false
        var finished = false
    }
    private let state = Mutex(State())

    init(_ request: HTTPRequest) { self.request = request }

    /// Stores the continuation. False when the task was cancelled before: the caller resumes it
    /// itself (the driver may already have seen the cancellation and found nothing to finish).
    func attach(_ continuation: Continuation) -> Bool {
        state.withLock { state in
            guard !state.cancelled else {
                state.finished = true
                return false
            }
            state.continuation = continuation
            return true
        }
    }

    /// Marks the request cancelled (before or after it reached the driver).
    func markCancelled() {
        state.withLock { $0.cancelled = true }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Resumes the waiting task once; a no-op before ``attach(_:)`` (only a cancellation can
    /// reach the driver first, and `attach` then reports it) and after the first call.
    func finish(_ result: Result<HTTPResponse, CurlError>) {
        let continuation: Continuation? = state.withLock { state in
            guard !state.finished, let continuation = state.continuation else { return nil }
            state.finished = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: result)
    }

    static let cancelledError = CurlError(
        code: CurlCodes.abortedByCallback, kind: .cancelled, message: "request cancelled")
}

/// `@unchecked Sendable`: other threads only call `curl_multi_wakeup` on it, which libcurl
/// documents as thread-safe; everything else happens on the driver thread.
private struct MultiPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}

/// curl's multi interface on one thread of its own: up to `maxConcurrent` transfers at once,
/// the rest queued in arrival order. The thread sleeps in `curl_multi_poll` until a socket is
/// ready, one of curl's timers (timeouts) is due, or `curl_multi_wakeup` says a request was
/// added or cancelled: no polling while requests are in flight, no wake-ups while idle.
final class MultiDriver: Sendable {
    private struct Inbox {
        var submitted: [PendingRequest] = []
        var cancelled: [PendingRequest] = []
        var stopping = false
    }

    let maxConcurrent: Int
    private let multi: MultiPointer?
    private let inbox = Mutex(Inbox())
    /// Why the multi handle could not be made (every request then fails with it).
    private let setupError: CurlError?
    /// Set when the driver thread could not be started: requests fail with it instead of
    /// waiting in a queue nobody serves.
    private let threadError = Mutex<CurlError?>(nil)
    /// The driver thread until ``shutDownAndWait()`` joins it (the lock is held while joining,
    /// so a second caller also returns only once it has exited); a driver released without
    /// that detaches it.
    private let thread = Mutex<pthread_t?>(nil)
    /// Called by the driver thread as the last step of its teardown; the tests' way to make
    /// that teardown slow.
    let teardownHookForTesting: (@Sendable () -> Void)?

    init(
        userAgent: String, caFile: String?, maxConcurrent: Int, teardownHookForTesting: (@Sendable () -> Void)? = nil
    ) {
        self.maxConcurrent = maxConcurrent
        self.teardownHookForTesting = teardownHookForTesting
        guard let raw = curl_multi_init() else {
            self.multi = nil
            self.setupError = CurlError(
                code: Int32(truncatingIfNeeded: CURLE_FAILED_INIT.rawValue), kind: .other,
                message: "curl_multi_init returned NULL")
            return
        }
        // Idle connections kept for reuse (keep-alive, TLS sessions): one per transfer slot.
        _ = ccurl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, maxConcurrent)
        self.multi = MultiPointer(raw: raw)
        self.setupError = nil
        let loop = DriverLoop(
            driver: self, multi: raw, userAgent: userAgent, caFile: caFile, maxConcurrent: maxConcurrent)
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                let loop = Unmanaged<DriverLoop>.fromOpaque(argument!).takeRetainedValue()
                loop.run()
                return nil
            }, Unmanaged.passRetained(loop).toOpaque())
        if started == 0 {
            self.thread.withLock { $0 = thread }
        } else {
            threadError.withLock {
                $0 = CurlError(
                    code: Int32(truncatingIfNeeded: CURLE_FAILED_INIT.rawValue), kind: .other,
                    message: "the HTTP thread could not be started (pthread_create: \(started))")
            }
        }
    }

    /// Queues `pending` (already attached); a cancelled one is finished at once.
    func submit(_ pending: PendingRequest) {
        guard let multi else {
            pending.finish(.failure(setupError!))
            return
        }
        if let error = threadError.withLock({ $0 }) {
            pending.finish(.failure(error))
            return
        }
        // Every wake-up is sent under the inbox lock and only before `stopping` is set: the
        // thread cleans the multi handle up only after it has seen `stopping` under that lock,
        // so no wake-up can reach a handle already freed.
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.submitted.append(pending)
            _ = curl_multi_wakeup(multi.raw)
            return true
        }
        guard accepted else {
            pending.finish(.failure(PendingRequest.cancelledError))
            return
        }
    }

    /// Asks the thread to drop `pending` (queued or running).
    func cancel(_ pending: PendingRequest) {
        guard let multi else { return }
        inbox.withLock { inbox in
            guard !inbox.stopping else { return }
            inbox.cancelled.append(pending)
            _ = curl_multi_wakeup(multi.raw)
        }
    }

    /// Asks the thread to end (it does not wait for that): everything queued or running fails
    /// as cancelled. Idempotent.
    func shutDown() {
        guard let multi else { return }
        inbox.withLock { inbox in
            guard !inbox.stopping else { return }
            inbox.stopping = true
            _ = curl_multi_wakeup(multi.raw)
        }
    }

    /// Ends the thread and returns once it has exited (`pthread_join`): its transfers failed as
    /// cancelled, curl's handles cleaned up, and the thread's own OpenSSL state released by its
    /// thread-exit destructors. Blocks; idempotent.
    ///
    /// Whoever exits the process calls this first. `exit` runs OpenSSL's atexit handler
    /// (`OPENSSL_cleanup`), which frees the library's global state; a thread still in
    /// `curl_multi_cleanup` or in OpenSSL's thread-exit destructor at that moment used freed
    /// memory: under qemu-user the agent's `once` died of SIGSEGV, or of SIGABRT from glibc
    /// ("double free or corruption", "malloc_consolidate(): unaligned fastbin chunk"), after its
    /// last log line (issue 40).
    func shutDownAndWait() {
        shutDown()
        thread.withLock { thread in
            guard let running = thread else { return }
            pthread_join(running, nil)
            thread = nil
        }
    }

    deinit {
        // Released without ``shutDownAndWait()`` (a client dropped; it asked the thread to end):
        // nobody will join the thread, which ends by itself. This can run on that very thread.
        thread.withLock { thread in
            if let running = thread { pthread_detach(running) }
        }
    }

    fileprivate func takeInbox() -> (submitted: [PendingRequest], cancelled: [PendingRequest], stopping: Bool) {
        inbox.withLock { inbox in
            defer {
                inbox.submitted.removeAll()
                inbox.cancelled.removeAll()
            }
            return (inbox.submitted, inbox.cancelled, inbox.stopping)
        }
    }
}

/// The driver thread's own state; no other thread touches it.
private final class DriverLoop {
    struct Active {
        let pending: PendingRequest
        let handle: EasyHandle
        let transfer: PreparedTransfer
    }

    let driver: MultiDriver
    let multi: UnsafeMutableRawPointer
    let userAgent: String
    let caFile: String?
    let maxConcurrent: Int
    /// Waiting for a slot, oldest first (`head` is the next one: no O(n) removal from the front).
    var queue: [PendingRequest] = []
    var head = 0
    var active: [Active] = []
    /// Handles not in use, kept for the next requests (at most `maxConcurrent`).
    var idle: [EasyHandle] = []

    init(driver: MultiDriver, multi: UnsafeMutableRawPointer, userAgent: String, caFile: String?, maxConcurrent: Int) {
        self.driver = driver
        self.multi = multi
        self.userAgent = userAgent
        self.caFile = caFile
        self.maxConcurrent = maxConcurrent
    }

    func run() {
        while true {
            let inbox = driver.takeInbox()
            queue += inbox.submitted
            for pending in inbox.cancelled { cancel(pending) }
            if inbox.stopping { break }
            // Transfers can end inside any perform (a loopback answer, a refused connection, a
            // DNS failure during an outage): each freed slot takes the next queued request
            // before the thread sleeps. Sleeping with a free slot and a queue waited for a
            // wake-up that nothing sends, up to the hour below (issue 30). Each round starts
            // at least one queued request, so the loop ends.
            repeat {
                startQueued()
                var running: Int32 = 0
                _ = curl_multi_perform(multi, &running)
                collectDone()
            } while head < queue.count && active.count < maxConcurrent
            // Sleeps until a socket is ready, curl's next timeout, or curl_multi_wakeup. The
            // timeout only bounds an idle wait; curl shortens it to its own timers. Here every
            // slot is busy or the queue is empty, so only those can bring more work.
            var ready: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 3_600_000, &ready)
        }
        for entry in active {
            _ = curl_multi_remove_handle(multi, entry.handle.raw)
            entry.pending.finish(entry.handle.finish(entry.transfer, code: CURLE_OK, cancelled: true))
        }
        active.removeAll()
        for pending in queue[head...] { pending.finish(.failure(PendingRequest.cancelledError)) }
        queue.removeAll()
        idle.removeAll()
        _ = curl_multi_cleanup(multi)
        driver.teardownHookForTesting?()
    }

    private func cancel(_ pending: PendingRequest) {
        if let index = active.firstIndex(where: { $0.pending === pending }) {
            let entry = active.remove(at: index)
            // Removing a running transfer aborts it (its connection is closed, not reused).
            _ = curl_multi_remove_handle(multi, entry.handle.raw)
            pending.finish(entry.handle.finish(entry.transfer, code: CURLE_OK, cancelled: true))
            recycle(entry.handle)
        } else {
            // Queued: finished now; `startQueued` skips it.
            pending.finish(.failure(PendingRequest.cancelledError))
        }
    }

    private func startQueued() {
        while active.count < maxConcurrent, head < queue.count {
            let pending = queue[head]
            head += 1
            if pending.isCancelled {
                pending.finish(.failure(PendingRequest.cancelledError))
                continue
            }
            let handle: EasyHandle
            if let reused = idle.popLast() {
                handle = reused
            } else {
                do throws(CurlError) {
                    handle = try EasyHandle(userAgent: userAgent, caFile: caFile)
                } catch {
                    pending.finish(.failure(error))
                    continue
                }
            }
            switch handle.prepare(pending.request) {
            case .failure(let error):
                pending.finish(.failure(error))
                recycle(handle)
            case .success(let transfer):
                let added = curl_multi_add_handle(multi, handle.raw)
                if added != CURLM_OK {
                    _ = handle.finish(transfer, code: CURLE_OK, cancelled: true)
                    pending.finish(
                        .failure(
                            CurlError(
                                code: Int32(truncatingIfNeeded: CURLE_FAILED_INIT.rawValue), kind: .other,
                                message: "curl_multi_add_handle: " + String(cString: curl_multi_strerror(added)))))
                    recycle(handle)
                    continue
                }
                active.append(Active(pending: pending, handle: handle, transfer: transfer))
            }
        }
        // The queue's consumed front is dropped once it is half of the array.
        if head > 0 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    private func collectDone() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = ccurl_msg_result(message)
            guard let index = active.firstIndex(where: { $0.handle.raw == easy }) else { continue }
            let entry = active.remove(at: index)
            _ = curl_multi_remove_handle(multi, easy)
            entry.pending.finish(entry.handle.finish(entry.transfer, code: code))
            recycle(entry.handle)
        }
    }

    private func recycle(_ handle: EasyHandle) {
        if idle.count < maxConcurrent { idle.append(handle) }
    }
}
