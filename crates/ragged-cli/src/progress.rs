//! Progress display: a spinner on stderr for long steps, hidden when stderr is not a
//! terminal or `--quiet` is given.

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
