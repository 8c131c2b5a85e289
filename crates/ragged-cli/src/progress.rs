//! Progress display: a spinner on stderr for long steps and a bytes bar for large
//! inputs, hidden when stderr is not a terminal or `--quiet` is given.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner for one step; finishes (and clears) when dropped.
pub struct Step(ProgressBar);

impl Step {
    /// Start a spinner with `message`, or a hidden one.
    pub fn start(message: &str, quiet: bool) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Step(ProgressBar::hidden());
        }
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            bar.set_style(style);
        }
        bar.set_message(message.to_string());
        bar.enable_steady_tick(Duration::from_millis(100));
        Step(bar)
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Inputs at least this large (or of unknown size) get a bytes bar.
pub const BAR_FROM_BYTES: u64 = 256 << 20;

/// A progress bar over input bytes with a bytes/s rate; finishes (and clears) when
/// dropped.
pub struct BytesBar(ProgressBar);

impl BytesBar {
    /// A bar for `total` bytes (a spinner with the count when unknown), hidden for
    /// small inputs, with `--quiet` or when stderr is not a terminal.
    pub fn start(message: &str, total: Option<u64>, quiet: bool) -> Self {
        let small = total.is_some_and(|t| t < BAR_FROM_BYTES);
        if quiet || small || !std::io::stderr().is_terminal() {
            return BytesBar(ProgressBar::hidden());
        }
        let (bar, template) = match total {
            Some(total) => (
                ProgressBar::new(total),
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
            ),
            None => (
                ProgressBar::new_spinner(),
                "{spinner} {msg} {bytes} {bytes_per_sec} {elapsed}",
            ),
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(message.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        BytesBar(bar)
    }

    /// `done` bytes processed.
    pub fn set(&self, done: u64) {
        self.0.set_position(done);
    }
}

impl Drop for BytesBar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
