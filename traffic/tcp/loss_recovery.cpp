// SPDX-License-Identifier: Apache-2.0
#include "traffic/tcp/loss_recovery.h"

#include "traffic/tcp/newreno_recovery.h"
#include "traffic/tcp/rack_tlp_recovery.h"
#include "traffic/tcp/rfc6675_recovery.h"
#include "traffic/tcp/tcp_sender.h"

namespace cmswitch {

uint64_t tcp_loss_recovery::flight_size() const {
    return m_s.m_high_tx - m_s.m_snd_una;
}

std::unique_ptr<tcp_loss_recovery> make_loss_recovery(tcp_sender& s, const tcp_config& cfg) {
    if (cfg.rack_tlp)
        return std::make_unique<rack_tlp_recovery>(s);
    if (cfg.sack)
        return std::make_unique<rfc6675_recovery>(s);
    return std::make_unique<newreno_recovery>(s);
}

}   // namespace cmswitch
