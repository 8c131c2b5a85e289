//! Choosing the device once, at the top, and running generic code on it.
//!
//! ```
//! use ragged::device::{select, AnyBackend, DeviceChoice};
//! use ragged::{Memory, Primitives, PrimitiveColumn};
//! let selected = select(DeviceChoice::Cpu, Default::default())?;
//! let col = PrimitiveColumn::from_vec(vec![1i64, 2, 3]);
//! let sum = ragged::with_backend!(&selected.backend, |b| {
//!     let on_device = b.to_device_primitive(&col)?;
//!     b.reduce_sum(&on_device)?
//! });
//! assert_eq!(sum, 6);
//! # Ok::<(), ragged::Error>(())
//! ```

use std::str::FromStr;

use ragged_core::{Error, Result};
use ragged_cpu::CpuBackend;
use ragged_cuda::{cuda_status, CudaBackend, CudaOptions, CudaStatus};

/// Parse a memory size such as `2GiB` (see [`ragged_cuda::parse_size`]).
pub use ragged_cuda::parse_size;

/// Which device to run on: `auto`, `cpu`, `cuda` or `cuda:N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// CUDA device 0 when usable, else the CPU (with a one-line notice).
    #[default]
    Auto,
    /// The CPU backend.
    Cpu,
    /// CUDA device N; an error when it is not usable.
    Cuda(usize),
}

impl FromStr for DeviceChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.as_str() {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" | "gpu" => Ok(DeviceChoice::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(DeviceChoice::Cuda)
                .ok_or_else(|| {
                    Error::invalid_argument(
                        "device",
                        format!("'{s}' is not one of auto, cpu, cuda, cuda:N"),
                    )
                }),
        }
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceChoice::Auto => write!(f, "auto"),
            DeviceChoice::Cpu => write!(f, "cpu"),
            DeviceChoice::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

/// A backend chosen at run time. Use [`crate::with_backend!`] to run generic code on it.
#[derive(Clone, Debug)]
pub enum AnyBackend {
    /// The CPU backend.
    Cpu(CpuBackend),
    /// A CUDA device.
    Cuda(CudaBackend),
}

impl AnyBackend {
    /// A one-line description (`cpu (2 threads)`, `cuda:0 NVIDIA H100 …`).
    pub fn describe(&self) -> String {
        use ragged_core::Memory;
        match self {
            AnyBackend::Cpu(b) => b.describe(),
            AnyBackend::Cuda(b) => b.describe(),
        }
    }

    /// Whether this is a CUDA device.
    pub fn is_cuda(&self) -> bool {
        matches!(self, AnyBackend::Cuda(_))
    }
}

/// The outcome of [`select`]: the backend, and a notice to print when `auto` fell back.
#[derive(Clone, Debug)]
pub struct Selected {
    /// The backend to run on.
    pub backend: AnyBackend,
    /// A one-line notice when the choice was `auto` and CUDA was not usable.
    pub notice: Option<String>,
}

/// Pick the backend for `choice`.
///
/// # Errors
/// [`Error::DeviceUnavailable`] when `cuda[:N]` was asked for and cannot be used;
/// [`Error::Device`] when the driver fails while opening it.
pub fn select(choice: DeviceChoice, options: CudaOptions) -> Result<Selected> {
    match choice {
        DeviceChoice::Cpu => Ok(Selected {
            backend: AnyBackend::Cpu(CpuBackend::new()),
            notice: None,
        }),
        DeviceChoice::Cuda(n) => Ok(Selected {
            backend: AnyBackend::Cuda(CudaBackend::new(n, options)?),
            notice: None,
        }),
        DeviceChoice::Auto => {
            let reason = match cuda_status() {
                CudaStatus::Unavailable { reason } => reason.clone(),
                CudaStatus::Available { .. } => match CudaBackend::new(0, options) {
                    Ok(b) => {
                        return Ok(Selected {
                            backend: AnyBackend::Cuda(b),
                            notice: None,
                        })
                    }
                    Err(e) => e.to_string(),
                },
            };
            Ok(Selected {
                backend: AnyBackend::Cpu(CpuBackend::new()),
                notice: Some(format!(
                    "notice: CUDA unavailable ({reason}); using the CPU backend"
                )),
            })
        }
    }
}

/// Run an expression generic over the backend on an [`AnyBackend`]: the body is
/// instantiated once per backend type, with `$b` bound to `&CpuBackend` or
/// `&CudaBackend`.
#[macro_export]
macro_rules! with_backend {
    ($any:expr, |$b:ident| $body:expr) => {
        match $any {
            $crate::device::AnyBackend::Cpu($b) => $body,
            $crate::device::AnyBackend::Cuda($b) => $body,
        }
    };
}

/// Where ops run, with the defaults every call shares: the backend (and through its
/// options the GPU memory limit and pool) and the offset width of variable-length
/// outputs. Cheap to clone; the value [`crate::compute`] takes.
///
/// ```
/// use ragged::device::Device;
/// let cpu = Device::cpu();
/// assert!(!cpu.is_cuda());
/// let auto = Device::parse("auto")?; // CUDA device 0 when usable, else the CPU
/// # Ok::<(), ragged::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Device {
    backend: AnyBackend,
    offset_width: ragged_core::ops::OffsetWidth,
}

impl Device {
    /// The CPU backend.
    pub fn cpu() -> Self {
        Self::from_backend(AnyBackend::Cpu(CpuBackend::new()))
    }

    /// CUDA device `ordinal`.
    ///
    /// # Errors
    /// [`Error::DeviceUnavailable`] when it cannot be used.
    pub fn cuda(ordinal: usize, options: CudaOptions) -> Result<Self> {
        Ok(Self::from_backend(AnyBackend::Cuda(CudaBackend::new(
            ordinal, options,
        )?)))
    }

    /// The device for `choice` (`auto` falls back to the CPU silently; see [`select`]
    /// for the notice).
    ///
    /// # Errors
    /// As [`select`].
    pub fn select(choice: DeviceChoice, options: CudaOptions) -> Result<Self> {
        Ok(Self::from_backend(select(choice, options)?.backend))
    }

    /// The device named `auto`, `cpu`, `cuda` or `cuda:N`, with default options.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another name; as [`select`].
    pub fn parse(name: &str) -> Result<Self> {
        Self::select(name.parse()?, CudaOptions::default())
    }

    /// A device running on `backend`, with `Auto` offsets.
    pub fn from_backend(backend: AnyBackend) -> Self {
        Self {
            backend,
            offset_width: ragged_core::ops::OffsetWidth::Auto,
        }
    }

    /// The same device with another offset width for variable-length outputs.
    pub fn with_offset_width(mut self, width: ragged_core::ops::OffsetWidth) -> Self {
        self.offset_width = width;
        self
    }

    /// The backend.
    pub fn backend(&self) -> &AnyBackend {
        &self.backend
    }

    /// The offset width of variable-length outputs.
    pub fn offset_width(&self) -> ragged_core::ops::OffsetWidth {
        self.offset_width
    }

    /// Whether this is a CUDA device.
    pub fn is_cuda(&self) -> bool {
        self.backend.is_cuda()
    }

    /// A one-line description (`cpu (2 threads)`, `cuda:0 NVIDIA H100 …`).
    pub fn describe(&self) -> String {
        self.backend.describe()
    }
}
