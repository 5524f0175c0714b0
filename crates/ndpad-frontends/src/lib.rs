//! ONNX / OpenVINO / nGraph front ends (in progress).
