#!/bin/sh
# Runs one command on an X display with TWO monitors side by side, 1920x1080 and 1280x720, so the
# presenter view can be tested as a classroom has it (slide on the projector, notes on the laptop).
#   tests/two_monitor_run.sh program [args...]     (exit status: the program's; 77: skipped)
#
# Why not Xvfb: its screens are separate X screens and GLFW sees one monitor. Xorg's dummy driver
# has RandR outputs (DUMMY0, DUMMY1, ...) that xrandr can switch on, and GLFW lists each as a
# monitor. Xorg with a config file outside /etc/X11 needs root (CI is root); anywhere it cannot
# start, the test is skipped with a line saying why rather than failed.
set -u
for tool in Xorg xrandr; do
    command -v "$tool" >/dev/null 2>&1 || { echo "two_monitor_run.sh: $tool is missing: skipped"; exit 77; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-two-monitors.XXXXXX") || exit 2
cat > "$dir/xorg.conf" <<'CONF'
Section "Device"
    Identifier "dummy"
    Driver "dummy"
    VideoRam 256000
EndSection
Section "Monitor"
    Identifier "monitor"
    HorizSync 5.0 - 1000.0
    VertRefresh 5.0 - 200.0
EndSection
Section "Screen"
    Identifier "screen"
    Device "dummy"
    Monitor "monitor"
    DefaultDepth 24
    SubSection "Display"
        Depth 24
        Virtual 3840 1080
    EndSubSection
EndSection
CONF
display=90
while [ -e "/tmp/.X$display-lock" ] && [ $display -lt 140 ]; do display=$((display + 1)); done
Xorg ":$display" -noreset -config "$dir/xorg.conf" -logfile "$dir/xorg.log" -nolisten tcp >/dev/null 2>&1 &
xorg=$!
finish() {
    kill "$xorg" 2>/dev/null
    wait "$xorg" 2>/dev/null
    rm -rf "$dir"
}
up=no
for _ in $(seq 50); do
    if DISPLAY=":$display" xrandr >/dev/null 2>&1; then up=yes; break; fi
    sleep 0.2
done
if [ $up = no ]; then
    echo "two_monitor_run.sh: Xorg with the dummy driver did not start (root and xserver-xorg-video-dummy needed): skipped"
    finish
    exit 77
fi
DISPLAY=":$display" xrandr --addmode DUMMY1 1280x720 >/dev/null 2>&1
DISPLAY=":$display" xrandr --output DUMMY0 --mode 1920x1080 >/dev/null 2>&1
DISPLAY=":$display" xrandr --output DUMMY1 --mode 1280x720 --right-of DUMMY0 >/dev/null 2>&1
# The server applies the change asynchronously: wait until it lists both monitors.
two=no
for _ in $(seq 25); do
    if [ "$(DISPLAY=":$display" xrandr --listactivemonitors 2>/dev/null | head -n 1)" = "Monitors: 2" ]; then two=yes; break; fi
    sleep 0.2
done
if [ $two = no ]; then
    echo "two_monitor_run.sh: the dummy driver would not switch on a second monitor: skipped"
    finish
    exit 77
fi
DISPLAY=":$display" "$@"
rc=$?
finish
exit $rc
