//! The one error type of weir, mirroring TensorFlow's `tf.errors` status codes.

use std::fmt;
use std::sync::Arc;

/// TensorFlow's status codes (`tensorflow::error::Code`), as `tf.errors` exposes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// `tf.errors.CancelledError`: the operation was cancelled (session closed, queue closed).
    Cancelled,
    /// `tf.errors.UnknownError`.
    Unknown,
    /// `tf.errors.InvalidArgumentError`: bad input to an op or a run.
    InvalidArgument,
    /// `tf.errors.DeadlineExceededError`: a run's timeout passed.
    DeadlineExceeded,
    /// `tf.errors.NotFoundError`: a file, resource or name does not exist.
    NotFound,
    /// `tf.errors.AlreadyExistsError`.
    AlreadyExists,
    /// `tf.errors.PermissionDeniedError`.
    PermissionDenied,
    /// `tf.errors.ResourceExhaustedError`.
    ResourceExhausted,
    /// `tf.errors.FailedPreconditionError`: e.g. reading an uninitialized variable.
    FailedPrecondition,
    /// `tf.errors.AbortedError`.
    Aborted,
    /// `tf.errors.OutOfRangeError`: input exhausted (a closed, empty queue).
    OutOfRange,
    /// `tf.errors.UnimplementedError`.
    Unimplemented,
    /// `tf.errors.InternalError`: a broken invariant inside weir.
    Internal,
    /// `tf.errors.UnavailableError`.
    Unavailable,
    /// `tf.errors.DataLossError`: corrupt or truncated data (a bad TFRecord CRC).
    DataLoss,
}

impl Code {
    /// TensorFlow's name of the code, as its C++ status prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Cancelled => "Cancelled",
            Code::Unknown => "Unknown",
            Code::InvalidArgument => "InvalidArgument",
            Code::DeadlineExceeded => "DeadlineExceeded",
            Code::NotFound => "NotFound",
            Code::AlreadyExists => "AlreadyExists",
            Code::PermissionDenied => "PermissionDenied",
            Code::ResourceExhausted => "ResourceExhausted",
            Code::FailedPrecondition => "FailedPrecondition",
            Code::Aborted => "Aborted",
            Code::OutOfRange => "OutOfRange",
            Code::Unimplemented => "Unimplemented",
            Code::Internal => "Internal",
            Code::Unavailable => "Unavailable",
            Code::DataLoss => "DataLoss",
        }
    }

    /// The code's number in TensorFlow's `error_codes.proto` (`tf.errors.OUT_OF_RANGE` is 11),
    /// as a `QueueRunnerDef` records it.
    pub fn proto_number(self) -> i32 {
        Code::ALL
            .iter()
            .position(|&c| c == self)
            .map_or(2, |i| i as i32 + 1)
    }

    /// The code numbered `n` in TensorFlow's `error_codes.proto`, if weir has it.
    pub fn from_proto_number(n: i32) -> Option<Code> {
        let i = usize::try_from(n).ok()?.checked_sub(1)?;
        Code::ALL.get(i).copied()
    }

    /// Every code, in the order of TensorFlow's numbers (1 to 15).
    const ALL: [Code; 15] = [
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
    ];
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an error arose: the node's name and op type, like TensorFlow's `[[{{node x}}]]` suffix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeContext {
    /// The node's unique name in its graph.
    pub name: String,
    /// The node's op type, e.g. `QueueDequeueV2`.
    pub op_type: String,
}

#[derive(Debug)]
struct Inner {
    code: Code,
    message: String,
    node: Option<NodeContext>,
}

/// A TensorFlow status: a [`Code`], a message, and the node where it arose.
///
/// Cheap to clone (shared), `Send + Sync + 'static`, so a `Coordinator` can keep the first error
/// and raise it again from `join`.
#[derive(Clone)]
pub struct Error(Arc<Inner>);

/// `Result` with weir's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

macro_rules! constructors {
    ($($fn_name:ident => $code:ident, $pred:ident;)*) => {
        $(
            #[doc = concat!("An error with code [`Code::", stringify!($code), "`].")]
            pub fn $fn_name(message: impl Into<String>) -> Error {
                Error::new(Code::$code, message)
            }
            #[doc = concat!("Whether the code is [`Code::", stringify!($code), "`].")]
            pub fn $pred(&self) -> bool {
                self.0.code == Code::$code
            }
        )*
    };
}

impl Error {
    /// An error with `code` and `message`, not yet attached to a node.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error(Arc::new(Inner {
            code,
            message: message.into(),
            node: None,
        }))
    }

    constructors! {
        cancelled => Cancelled, is_cancelled;
        unknown => Unknown, is_unknown;
        invalid_argument => InvalidArgument, is_invalid_argument;
        deadline_exceeded => DeadlineExceeded, is_deadline_exceeded;
        not_found => NotFound, is_not_found;
        already_exists => AlreadyExists, is_already_exists;
        permission_denied => PermissionDenied, is_permission_denied;
        resource_exhausted => ResourceExhausted, is_resource_exhausted;
        failed_precondition => FailedPrecondition, is_failed_precondition;
        aborted => Aborted, is_aborted;
        out_of_range => OutOfRange, is_out_of_range;
        unimplemented => Unimplemented, is_unimplemented;
        internal => Internal, is_internal;
        unavailable => Unavailable, is_unavailable;
        data_loss => DataLoss, is_data_loss;
    }

    /// The status code.
    pub fn code(&self) -> Code {
        self.0.code
    }

    /// The message, without the node suffix.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The node where the error arose, if known.
    pub fn node(&self) -> Option<&NodeContext> {
        self.0.node.as_ref()
    }

    /// Attaches the node where the error arose; an error that already names a node keeps it,
    /// because the innermost node is the one that failed.
    pub fn with_node(self, name: &str, op_type: &str) -> Error {
        if self.0.node.is_some() {
            return self;
        }
        Error(Arc::new(Inner {
            code: self.0.code,
            message: self.0.message.clone(),
            node: Some(NodeContext {
                name: name.to_string(),
                op_type: op_type.to_string(),
            }),
        }))
    }

    /// The same error with `prefix` put before its message (context from an outer layer).
    pub fn with_prefix(&self, prefix: &str) -> Error {
        Error(Arc::new(Inner {
            code: self.0.code,
            message: format!("{prefix}{}", self.0.message),
            node: self.0.node.clone(),
        }))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.code, self.0.message)?;
        if let Some(node) = &self.0.node {
            write!(f, "\n\t [[node {} ({})]]", node.name, node.op_type)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.0.code == other.0.code
            && self.0.message == other.0.message
            && self.0.node == other.0.node
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        use std::io::ErrorKind as K;
        let code = match e.kind() {
            K::NotFound => Code::NotFound,
            K::PermissionDenied => Code::PermissionDenied,
            K::AlreadyExists => Code::AlreadyExists,
            K::InvalidInput | K::InvalidData => Code::InvalidArgument,
            K::UnexpectedEof => Code::OutOfRange,
            K::Interrupted => Code::Cancelled,
            _ => Code::Unknown,
        };
        Error::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_code_and_node() {
        let e = Error::invalid_argument("bad feed").with_node("p", "Placeholder");
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.is_invalid_argument());
        assert!(!e.is_out_of_range());
        assert_eq!(e.message(), "bad feed");
        assert_eq!(
            e.to_string(),
            "InvalidArgument: bad feed\n\t [[node p (Placeholder)]]"
        );
    }

    #[test]
    fn codes_have_tensorflows_numbers() {
        // tensorflow/core/protobuf/error_codes.proto
        assert_eq!(Code::Cancelled.proto_number(), 1);
        assert_eq!(Code::InvalidArgument.proto_number(), 3);
        assert_eq!(Code::OutOfRange.proto_number(), 11);
        assert_eq!(Code::DataLoss.proto_number(), 15);
        assert_eq!(Code::from_proto_number(11), Some(Code::OutOfRange));
        assert_eq!(Code::from_proto_number(0), None);
        assert_eq!(Code::from_proto_number(16), None);
    }

    #[test]
    fn innermost_node_wins() {
        let e = Error::out_of_range("done")
            .with_node("inner", "QueueDequeueV2")
            .with_node("outer", "ReaderReadV2");
        assert_eq!(e.node().unwrap().name, "inner");
    }

    #[test]
    fn is_send_sync_static_clone() {
        fn check<T: Clone + Send + Sync + 'static + std::error::Error>() {}
        check::<Error>();
    }

    #[test]
    fn io_not_found_maps_to_not_found() {
        let e: Error = std::io::Error::new(std::io::ErrorKind::NotFound, "x").into();
        assert!(e.is_not_found());
    }
}
