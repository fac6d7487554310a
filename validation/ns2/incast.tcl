# Barrier-synchronized TCP incast in ns-2 2.35 (Devkota & Reddy 2010 section IV), the reference for cmswitch's incast scenario.
# One client, N servers, one switch node; every link full duplex at link_gbps with delay_us each way. The switch's
# queue toward the client is drop-tail in bytes (buffer_kb x 1024); every other queue is large enough never to drop.
# Each server is a one-way Agent/TCP/Newreno with a TCPSink (one ACK per segment) at the client. A round: every
# server gets one SRU to send (advanceby); when all N have been fully acknowledged, the next round starts at once
# for all of them (the paper's idealization: simultaneous requests, no request frames).
#
# Usage: ns incast.tcl key=value ...   (see the defaults in `array set opt` below); delays=d1,d2,... gives each
# server's link its own delay in us (cmswitch --delay-skew-ns lists the ones it draws in its flows table)
# Prints one line of key=value results at the end; with trace=PREFIX also writes PREFIX.queue (the bottleneck
# queue's +/-/d events) and PREFIX.tcp (per-flow cwnd_, nrexmit_, ncwndcuts_, ack_ changes).

array set opt {
    flows 4 buffer_kb 64 min_rto_ms 200 duration_s 20 sru_kb 256 link_gbps 1 delay_us 25
    mss 1460 init_cwnd 2 window 1000000 tick_s 0.000001 syn 0 singledup 1 timestamps 0 trace ""
    seed 1 overhead_us 0 delays "" tcp newreno
}
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
        puts stderr "unknown argument '$a'; known: [lsort [array names opt]]"
        exit 2
    }
    set opt([lindex $kv 0]) [lindex $kv 1]
}

set ns [new Simulator]
# random choices (only the send overhead uses them): seeded, so that a seed gives the same run every time
global defaultRNG
$defaultRNG seed $opt(seed)

set rate "[expr {$opt(link_gbps) * 1e9}]"
set delay "[expr {$opt(delay_us) * 1e-6}]"
set buffer_bytes [expr {int($opt(buffer_kb) * 1024)}]
set sru_bytes [expr {int($opt(sru_kb) * 1024)}]
# one-way TCP counts whole segments: the SRU's last segment is sent full size (ns-2 has no partial segments)
set sru_pkts [expr {($sru_bytes + $opt(mss) - 1) / $opt(mss)}]

Agent/TCP set packetSize_ $opt(mss)
Agent/TCP set window_ $opt(window)
Agent/TCP set windowInit_ $opt(init_cwnd)
Agent/TCP set minrto_ [expr {$opt(min_rto_ms) * 1e-3}]
Agent/TCP set maxrto_ 60
Agent/TCP set tcpTick_ $opt(tick_s)
Agent/TCP set syn_ [expr {$opt(syn) ? "true" : "false"}]
# without a SYN exchange, start with the initial window at once (as cmswitch's established connections do)
Agent/TCP set delay_growth_ [expr {$opt(syn) ? "true" : "false"}]
Agent/TCP set singledup_ $opt(singledup)
Agent/TCP set timestamps_ [expr {$opt(timestamps) ? "true" : "false"}]
# overhead_: a random delay in [0, overhead) before each burst a sender sends (ns-2's way to break phase effects;
# cmswitch's counterpart is --jitter-ns)
Agent/TCP set overhead_ [expr {$opt(overhead_us) * 1e-6}]
# the first RTO before any RTT sample: the same as the model (min_rto, as after a handshake's RTT sample)
Agent/TCP set rtxcur_init_ [expr {$opt(min_rto_ms) * 1e-3}]

set client [$ns node]
set sw [$ns node]
$ns duplex-link $sw $client $rate $delay DropTail
set bq [[$ns link $sw $client] queue]
$bq set queue_in_bytes_ true
$bq set mean_pktsize_ 1
$bq set limit_ $buffer_bytes
$ns queue-limit $client $sw 1000000

set tcps {}
set server_delays [split $opt(delays) ,]
if {$opt(delays) ne "" && [llength $server_delays] != $opt(flows)} {
    puts stderr "delays: [llength $server_delays] values for $opt(flows) servers"
    exit 2
}
for {set i 0} {$i < $opt(flows)} {incr i} {
    set s [$ns node]
    set d $delay
    if {$opt(delays) ne ""} { set d [expr {[lindex $server_delays $i] * 1e-6}] }
    $ns duplex-link $s $sw $rate $d DropTail
    $ns queue-limit $s $sw 1000000
    $ns queue-limit $sw $s 1000000
    if {$opt(tcp) eq "sack1"} {
        set tcp [new Agent/TCP/Sack1]
        set sink [new Agent/TCPSink/Sack1]
    } else {
        set tcp [new Agent/TCP/Newreno]
        set sink [new Agent/TCPSink]
    }
    $tcp set fid_ $i
    $ns attach-agent $s $tcp
    $ns attach-agent $client $sink
    $ns connect $tcp $sink
    lappend tcps $tcp
}

# The next round starts when the last server's last ACK arrives (one 40-byte ACK's latency after the client has
# everything). cmswitch's simultaneous requests arrive one 64-byte request's latency after that point: the
# difference, 2 x 24 bytes of serialization, is added here so that both start rounds at the same time.
set request_extra_s [expr {2 * (64 - 40) * 8 / ($opt(link_gbps) * 1e9)}]
set round 0
set done_count 0
set rounds_done 0
set round_start 0.0
set round_times {}

Agent/TCP instproc done {} {
    global done_count opt
    global ns request_extra_s
    incr done_count
    if {$done_count == $opt(flows)} { $ns at [expr {[$ns now] + $request_extra_s}] next_round }
}

proc next_round {} {
    global ns tcps sru_pkts done_count round rounds_done round_start round_times
    set now [$ns now]
    if {$round > 0} {
        incr rounds_done
        lappend round_times [expr {$now - $round_start}]
        global rf
        if {[info exists rf]} { puts $rf [format "%d %.9f" $rounds_done $now] }
    }
    incr round
    set done_count 0
    set round_start $now
    foreach tcp $tcps { $tcp advanceby $sru_pkts }
}

# Fast retransmits are not counted by ns-2: ncwndcuts_ also counts timeouts and the slow-start restarts after an
# idle RTO. A small variable trace tells them apart: a cut while dupacks_ >= 3 is a fast retransmit.
# (An agent writes its variable trace to one channel: with trace=PREFIX that is PREFIX.tcp, which is read instead.)
if {$opt(trace) eq ""} {
    set count_file [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] "incast_counts_[pid].tr"]
    set cf [open $count_file w]
    foreach tcp $tcps {
        $tcp attach $cf
        foreach v {ncwndcuts_ dupacks_} { $tcp trace $v }
    }
} else {
    set qf [open "$opt(trace).queue" w]
    $ns trace-queue $sw $client $qf
    set rf [open "$opt(trace).rounds" w]
    set count_file "$opt(trace).tcp"
    set tf [open $count_file w]
    set cf $tf
    foreach tcp $tcps {
        $tcp attach $tf
        foreach v {cwnd_ nrexmit_ ncwndcuts_ ack_ ssthresh_ backoff_ dupacks_ maxseq_} { $tcp trace $v }
    }
}

proc finish {} {
    global ns tcps opt sru_pkts sru_bytes rounds_done round_times
    # payload bytes delivered: every acknowledged segment carries mss bytes (ns-2 has no partial segments, so an
    # SRU of sru_kb is sent as sru_pkts full segments)
    set delivered 0
    set timeouts 0
    set cuts 0
    set maxto 0
    set syn [expr {$opt(syn) ? 1 : 0}]
    foreach tcp $tcps {
        set acked [expr {[$tcp set ack_] + 1 - $syn}]
        if {$acked < 0} { set acked 0 }
        set delivered [expr {$delivered + $acked * $opt(mss)}]
        set to [$tcp set nrexmit_]
        set timeouts [expr {$timeouts + $to}]
        if {$to > $maxto} { set maxto $to }
        set cuts [expr {$cuts + [$tcp set ncwndcuts_]}]
    }
    global cf count_file
    close $cf
    set f [open $count_file r]
    array set dup {}
    array set cuts_seen {}
    set fr 0
    while {[gets $f line] >= 0} {
        set id [lindex $line 1]
        set var [lindex $line 5]
        set val [lindex $line 6]
        if {$var eq "dupacks_"} {
            set dup($id) $val
        } elseif {$var eq "ncwndcuts_"} {
            if {[info exists cuts_seen($id)] && $val > $cuts_seen($id)} {
                if {[info exists dup($id)] && $dup($id) >= 3} { incr fr }
            }
            set cuts_seen($id) $val
        }
    }
    close $f
    if {$opt(trace) eq ""} { file delete $count_file }
    set goodput [expr {$delivered * 8.0 / $opt(duration_s) / 1e6}]
    set n $opt(flows)
    puts [format "goodput_mbps=%.3f rounds_completed=%d timeouts=%d timeouts_per_flow_mean=%.3f timeouts_max_flow=%d cwnd_cuts=%d fast_retransmits=%d idle_restarts=%d" \
        $goodput $rounds_done $timeouts [expr {double($timeouts) / $n}] $maxto $cuts $fr [expr {$cuts - $timeouts - $fr}]]
    exit 0
}

$ns at 0.0 "next_round"
$ns at $opt(duration_s) "finish"
$ns run
