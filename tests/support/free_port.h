#pragma once

namespace tuneframe::test {

// A loopback TCP port nobody listens on right now, for a test's rendezvous store.
int free_port();

} // namespace tuneframe::test
