// SPDX-License-Identifier: Apache-2.0
// What a transport tells the application above it, the same for every transport (TCP, SCTP): an application
// written against these works over either. Not owned by the transport; protected destructors: never deleted
// through them.
#ifndef CMSWITCH_TRAFFIC_TRANSPORT_LISTENER_H
#define CMSWITCH_TRAFFIC_TRANSPORT_LISTENER_H

#include <cstdint>

namespace cmswitch {

// At a sender: everything the application gave it has been acknowledged.
class send_listener {
public:
    virtual void on_send_complete(uint32_t flow, uint64_t now_ps) = 0;

protected:
    ~send_listener() = default;
};

// At a receiver: in_order_bytes (payload delivered in order on this flow so far) grew.
class delivery_listener {
public:
    virtual void on_delivered(uint32_t flow, uint64_t in_order_bytes, uint64_t now_ps) = 0;

protected:
    ~delivery_listener() = default;
};

}   // namespace cmswitch
#endif
