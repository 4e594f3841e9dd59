//! weir: TensorFlow 1.x's dataflow-graph model in Rust.
//!
//! Build a [`Graph`] of ops (placeholders, constants, variables, math, queues, readers,
//! decoders), then run parts of it with a multithreaded [`Session`], feeding any tensor and
//! fetching any output:
//!
//! ```
//! use weir::prelude::*;
//!
//! let g = Graph::new();
//! let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(2)]))?;
//! let w = Variable::builder(constant(&g, Tensor::from_vec(&[2, 1], vec![2.0f32, 3.0])?)?)
//!     .name("w")
//!     .build()?;
//! let y = (x.matmul(&w.value())? + 1.0)?;
//!
//! let sess = Session::new(&g)?;
//! sess.run(&RunArgs::new().target(&global_variables_initializer(&g)?))?;
//! let out = sess.run(&RunArgs::new().feed(&x, Tensor::from_vec(&[1, 2], vec![1.0f32, 1.0])?).fetch(&y))?;
//! assert_eq!(out[0].to_vec::<f32>()?, vec![6.0]);
//! # Ok::<(), weir::Error>(())
//! ```
//!
//! The crates: [`graph`] (tensors, graph, errors, kernel interface), [`ops`] (every op),
//! [`session`] (running graphs), [`train`] (tf.train: coordination, input pipelines, training).

#[cfg(feature = "mimalloc")]
mod allocator;

/// The process-wide allocator when the default `mimalloc` feature is on (see Cargo.toml and
/// `src/allocator.rs` for why).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: allocator::MiMalloc = allocator::MiMalloc;

pub use weir_graph as graph;
pub use weir_ops as ops;
pub use weir_session as session;
pub use weir_train as train;

pub use weir_graph::{
    graph_keys, Code, DType, Error, Graph, Operation, Output, Result, Shape, SparseTensor, Tensor,
};
pub use weir_session::{
    RunArgs, RunMetadata, Session, SessionHandle, SessionOptions, Timeline, TraceLevel,
};

/// The names a graph-building program uses most, for `use weir::prelude::*`.
pub mod prelude {
    pub use weir_graph::graph_def::ImportGraphDef;
    pub use weir_graph::{
        graph_keys, Bytes, DType, Error, Graph, Operation, Output, Result, Shape, SparseTensor,
        Tensor,
    };
    pub use weir_ops::array::{
        bincount, bucketize, depth_to_space, histogram_fixed_width, lin_space, meshgrid, roll,
        space_to_depth, tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update,
        unique_with_counts, Bincount, HistogramFixedWidth, Indexing,
    };
    pub use weir_ops::array::{
        boolean_mask, check_numerics, concat, constant, constant_named, expand_dims, fill, gather,
        gather_nd, identity, identity_n, one_hot, ones, ones_like, pad, placeholder,
        placeholder_with_default, rank, reshape, reverse, scatter_nd, sequence_mask, shape, size,
        slice, split, split_v, squeeze, stack, strided_slice, tile, transpose, unique, unstack,
        where_indices, zeros, zeros_like, ArrayExt, OneHot, Pad, PadMode, Placeholder,
        SequenceMask, SliceItem, StridedSlice, ELLIPSIS, NEW_AXIS,
    };
    /// `tf.data`; its `Iterator` is reached as `data::Iterator`, so the prelude does not hide
    /// `std::iter::Iterator`.
    pub use weir_ops::audio::{decode_wav, encode_wav, DecodeWav, EncodeWav};
    pub use weir_ops::control_flow::{
        assert_greater, assert_greater_equal, assert_less, assert_less_equal, assert_non_negative,
        cond, foldl, foldr, group, map_fn, merge, no_op, scan, switch, tuple, while_loop,
        with_dependencies, Assert, Case, Cond, Foldl, Foldr, MapFn, ScanFn, WhileLoop,
    };
    pub use weir_ops::data;
    pub use weir_ops::data::Dataset;
    pub use weir_ops::data_flow::{
        Barrier, ConditionalAccumulator, FifoQueue, MapStagingArea, PaddingFifoQueue,
        PriorityQueue, Queue, RandomShuffleQueue, SparseConditionalAccumulator, StagingArea,
    };
    pub use weir_ops::image::{
        adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, convert_image_dtype,
        decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
        extract_jpeg_shape, is_jpeg, per_image_standardization, random_brightness, random_contrast,
        random_flip_left_right, random_flip_up_down, random_hue, random_saturation, resize, Resize,
        ResizeMethod,
    };
    pub use weir_ops::import_graph_def;
    pub use weir_ops::init_ops::Initializer;
    pub use weir_ops::io::example::{Example, Feature, SequenceExample};
    pub use weir_ops::io::{
        matching_files, read_file, tf_record_iterator, write_file, Compression,
        FixedLengthRecordReader, IdentityReader, Reader, RecordInput, TextLineReader,
        TfRecordOptions, TfRecordReader, TfRecordWriter, WholeFileReader,
    };
    pub use weir_ops::linalg;
    pub use weir_ops::linalg::{
        cholesky, diag, diag_part, einsum, matrix_band_part, matrix_determinant, matrix_inverse,
        matrix_triangular_solve, MatrixDiag,
    };
    pub use weir_ops::logging::{print, print_v2, OutputStream, Print, PrintArg, PrintV2};
    pub use weir_ops::lookup::{
        index_table_from_file, index_table_from_tensor, index_to_string_table_from_file,
        index_to_string_table_from_tensor, tables_initializer, KeyValueTensorInitializer,
        MutableHashTable, StaticHashTable, StaticVocabularyTable, TextFileIndex,
        TextFileInitializer,
    };
    pub use weir_ops::math::{
        abs, add, add_n, arg_max, arg_min, cast, ceil, clip_by_value, confusion_matrix, cos,
        cumsum, div, div_no_nan, divide, equal, exp, floor, floordiv, floormod, greater,
        greater_equal, less, less_equal, log, log1p, logical_and, logical_not, logical_or, matmul,
        maximum, minimum, mul, neg, not_equal, pow, range, realdiv, reduce_all, reduce_any,
        reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, round, rsqrt, segment_max,
        segment_mean, segment_min, segment_prod, segment_sum, select, sigmoid, sign, sin, sqrt,
        square, squared_difference, sub, tanh, truediv, where_, Axes, MatMul, MathExt, Reduce,
        Scan,
    };
    pub use weir_ops::math::{
        clip_by_average_norm, clip_by_global_norm, clip_by_norm, global_norm, sparse_segment_mean,
        sparse_segment_sqrt_n, sparse_segment_sum, tensordot, unsorted_segment_mean,
        unsorted_segment_sqrt_n, TensordotAxes,
    };
    pub use weir_ops::nn;
    pub use weir_ops::nn::{
        compute_accidental_hits, conv2d_transpose, depthwise_conv2d, embedding_lookup,
        embedding_lookup_sparse, fixed_unigram_candidate_sampler, l2_normalize,
        log_uniform_candidate_sampler, nce_loss, sampled_softmax_loss, separable_conv2d,
        uniform_candidate_sampler, CandidateSamples, FixedUnigramCandidateSampler, SampledLoss,
    };
    pub use weir_ops::parsing::{
        decode_compressed, decode_csv, decode_json_example, decode_raw, parse_example,
        parse_sequence_example, parse_single_example, parse_single_sequence_example, parse_tensor,
        serialize_tensor, DecodeCompressed, DecodeCsv, DecodeJsonExample, DecodeRaw, Features,
        FixedLenFeature, FixedLenSequenceFeature, ParseExample, ParsedFeatures, SparseFeature,
        SparseFeatureOutput, VarLenFeature,
    };
    pub use weir_ops::random::{
        multinomial, random_crop, random_normal, random_shuffle, random_uniform, truncated_normal,
        RandomNormal, RandomUniform, TruncatedNormal,
    };
    pub use weir_ops::sparse::edit_distance;
    pub use weir_ops::sparse::{
        sparse_add, sparse_concat, sparse_dense_cwise_add, sparse_dense_cwise_div,
        sparse_dense_cwise_mul, sparse_fill_empty_rows, sparse_maximum, sparse_minimum,
        sparse_reduce_max, sparse_reduce_max_sparse, sparse_reduce_sum, sparse_reduce_sum_sparse,
        sparse_reset_shape, sparse_reshape, sparse_retain, sparse_slice, sparse_softmax,
        sparse_split, sparse_tensor_dense_add, sparse_tensor_dense_matmul, sparse_tensor_to_dense,
        sparse_to_dense, sparse_to_indicator, sparse_transpose, SparseOutput,
    };
    pub use weir_ops::state::{
        global_variables, global_variables_initializer, local_variables,
        local_variables_initializer, report_uninitialized_variables, trainable_variables,
        variables_initializer, Variable,
    };
    pub use weir_ops::state::{
        scatter_add, scatter_div, scatter_max, scatter_min, scatter_mul, scatter_nd_add,
        scatter_nd_sub, scatter_nd_update, scatter_sub, scatter_update,
    };
    pub use weir_ops::string::{
        as_string, decode_base64, encode_base64, regex_full_match, string_format, string_join,
        string_length, string_split, string_to_hash_bucket_fast, string_to_number, strings_split,
        substr,
    };
    pub use weir_ops::tensor_array::TensorArray;
    pub use weir_ops::{complex, spectral};
    pub use weir_session::{
        RunArgs, RunMetadata, Session, SessionHandle, SessionOptions, Timeline, TraceLevel,
    };
    pub use weir_train::gradients::{gradients, hessians, stop_gradient, Gradients};
    pub use weir_train::{
        add_queue_runner, batch, batch_join, exponential_decay, get_or_create_global_step,
        get_variable, input_producer, latest_checkpoint, limit_epochs, match_filenames_once,
        maybe_batch, maybe_shuffle_batch, piecewise_constant, range_input_producer, shuffle_batch,
        shuffle_batch_join, slice_input_producer, start_queue_runners, string_input_producer,
        variable_scope, AdagradOptimizer, AdamOptimizer, Batch, BatchJoin, CoordThread,
        Coordinator, GetVariable, GradientDescentOptimizer, InputProducer, LooperThread,
        MomentumOptimizer, Optimizer, QueueRunner, RMSPropOptimizer, RangeInputProducer, Saver,
        ShuffleBatch, ShuffleBatchJoin, SliceInputProducer, StringInputProducer, VariableScope,
    };
    pub use weir_train::{
        cosine_decay, cosine_decay_restarts, inverse_time_decay, linear_cosine_decay,
        natural_exp_decay, noisy_linear_cosine_decay, polynomial_decay, AdaMaxOptimizer,
        AdadeltaOptimizer, AdagradDAOptimizer, AddSignOptimizer, FtrlOptimizer, PowerSignOptimizer,
        ProximalAdagradOptimizer, ProximalGradientDescentOptimizer,
    };
    pub use weir_train::{
        export_meta_graph, import_meta_graph, write_graph, CheckpointSaverHook,
        ExponentialMovingAverage, ExportMetaGraph, FeedFnHook, FinalOpsHook, ImportMetaGraph,
        LoggingTensorHook, MonitoredSession, MonitoredTrainingSession, NanTensorHook, ProfilerHook,
        SaveArgs, Scaffold, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
        StepCounterHook, StopAtStepHook, SummarySaverHook,
    };
    pub use weir_train::{feature_column, warm_start, WarmStart};
    pub use weir_train::{l1_l2_regularizer, l1_regularizer, l2_regularizer, Regularizer};
    pub use weir_train::{layers, losses, metrics, saved_model};
    pub use weir_train::{
        summary_iterator, CheckpointSaverListener, ChiefSessionCreator, GlobalStepWaiterHook,
        ManagedSessionOptions, PrepareArgs, SessionCreator, SessionManager,
        SingularMonitoredSession, Supervisor, SupervisorBuilder, WorkerSessionCreator,
    };
}
