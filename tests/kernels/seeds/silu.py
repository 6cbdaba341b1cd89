import argparse
import copy
import os
import random
import shutil

import torch
import torch.profiler
import triton
import triton.language as tl
from torch.export import export, Dim
from torch.library import triton_op, wrap_triton


# 1. Define the Pure Triton Kernel
@triton.jit
def triton_silu_kernel(in_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    x = tl.load(in_ptr + offsets, mask=mask)

    # Keep everything in float32 for the math
    x_f32 = x.to(tl.float32)
    sigmoid_x = 1.0 / (1.0 + tl.exp(-x_f32))

    # Multiply in float32, THEN cast to bfloat16
    out = (x_f32 * sigmoid_x).to(x.dtype)

    tl.store(out_ptr + offsets, out, mask=mask)


# 2. Register with triton_op to ensure transparent tracing by torch.export
@triton_op("custom_ops::triton_silu_triton_op", mutates_args={})
def triton_silu_triton_op(x: torch.Tensor) -> torch.Tensor:
    # Enforce contiguous memory to ensure 1D pointer arithmetic is safe
    assert x.is_contiguous(), "Input tensor must be contiguous"
    out = torch.empty_like(x)
    n_elements = x.numel()

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    wrap_triton(triton_silu_kernel)[grid](x, out, n_elements, BLOCK_SIZE=1024)

    return out


# Alternative PyTorch operator that uses the same Triton kernel but is not registered with triton_op.
def triton_silu_pytorch_op(x: torch.Tensor) -> torch.Tensor:
    # Enforce contiguous memory to ensure 1D pointer arithmetic is safe
    assert x.is_contiguous(), "Input tensor must be contiguous"
    out = torch.empty_like(x)
    n_elements = x.numel()

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    triton_silu_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)

    return out


def pytorch_silu_eager(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x)


# 3. Model Architecture
class CustomModel(torch.nn.Module):
    def __init__(self, in_features=128, out_features=64, silu_op="triton_silu_triton_op"):
        super().__init__()
        self.linear1 = torch.nn.Linear(in_features, out_features)
        self.linear2 = torch.nn.Linear(out_features, in_features)
        self.silu_op = silu_op

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear1(x)
        # Call the transparent operator
        if self.silu_op == "triton_silu_triton_op":
            x = torch.ops.custom_ops.triton_silu_triton_op.default(x)
        elif self.silu_op == "triton_silu_pytorch_op":
            x = triton_silu_pytorch_op(x)
        elif self.silu_op == "pytorch_silu_eager":
            x = pytorch_silu_eager(x)
        else:
            raise ValueError(f"Invalid silu_op: {self.silu_op}")
        x = self.linear2(x)
        return x


def main():
    # Set random seed for reproducibility
    random_seed = 42
    torch.manual_seed(random_seed)
    torch.cuda.manual_seed_all(random_seed)
    random.seed(random_seed)
    # For deterministic behavior (optional, may affect performance)
    torch.use_deterministic_algorithms(True, warn_only=True)

    # Remove TorchInductor and Triton kernel cache if present
    inductor_cache_dir = "/tmp/torchinductor_root/"
    if os.path.exists(inductor_cache_dir):
        print(f"Removing TorchInductor cache directory: {inductor_cache_dir}")
        shutil.rmtree(inductor_cache_dir)

    parser = argparse.ArgumentParser(description="Torch Triton Export with AOTInductor")
    parser.add_argument(
        "--use_registered_triton_op",
        action="store_true",
        default=False,
        help="Use registered custom Triton op (default: False)",
    )
    parser.add_argument(
        "--strict_export",
        action="store_true",
        default=False,
        help="Enable strict export (TorchDynamo tracing, default: False)",
    )
    # Always use torch.compile(fullgraph=True), so remove dynamo_fullgraph arg
    args = parser.parse_args()

    use_registered_triton_op = args.use_registered_triton_op
    strict_export = args.strict_export

    silu_op = "triton_silu_triton_op" if use_registered_triton_op else "triton_silu_pytorch_op"
    print(f"Using silu_op: {silu_op}")

    in_features = 128
    out_features = 64
    device = "cuda"
    dtype = torch.bfloat16
    atol = 1e-5
    rtol = 1e-5

    # 4. Instantiate model and weights in BF16
    model = CustomModel(in_features=in_features, out_features=out_features, silu_op=silu_op).to(
        device=device, dtype=dtype
    )
    # Randomly initialize all parameters
    for param in model.parameters():
        if param.requires_grad:
            torch.nn.init.uniform_(param, -1.0, 1.0)
    model.eval()

    # 5. Define dynamic batch dimension constraints (batch size can vary from 1 to 1024)
    batch_dim = Dim("batch", min=1, max=1024)
    dynamic_shapes = {"x": {0: batch_dim}}

    # 6. Prepare sample input
    sample_input = torch.randn(8, in_features, device=device, dtype=dtype)

    # 7. Always TorchDynamo fullgraph compile
    print("--- Cleaning torch.compile cache ---")
    torch._dynamo.reset()  # Clean torch.compile cache
    print("--- Compiling model with torch.compile(fullgraph=True) ---")
    torch_compiled_model = torch.compile(model, fullgraph=True)

    # 8. Trace the model using torch.export (AOTInductor path)
    print(f"--- Exporting model via torch.export (strict={strict_export}) ---")
    exported_program = export(model, args=(sample_input,), dynamic_shapes=dynamic_shapes, strict=strict_export)
    print("Model successfully traced and exported!")
    print("\nGraph Nodes Extracted:")
    exported_program.graph.print_tabular()

    # 9. Compile and Package via AOTInductor
    print("\n--- Compiling and Packaging via AOTInductor ---")
    output_package = "/tmp/compiled_model.pt2"
    # Clean up previous artifacts if they exist
    if os.path.exists(output_package):
        os.remove(output_package)

    # Instruct Inductor to accept user-defined Triton kernels natively
    torch._inductor.config.static_launch_user_defined_triton_kernels = True

    # Use the unified package compiler.
    # This wraps weights, metadata, and the compiled binary artifact natively inside a single zipped .pt2 container file.
    package_path = torch._inductor.aoti_compile_and_package(
        exported_program,
        package_path=output_package,
    )
    print(f"Compilation finished! Self-contained package saved to: {package_path}")

    # 12. Correctness Verification
    # Prepare inference input for correctness and profiling
    inference_input = torch.randn(16, in_features, device=device, dtype=dtype)

    # Run both models to get outputs for correctness check
    with torch.no_grad():
        torch_compiled_output = torch_compiled_model(inference_input)

    compiled_runner = torch._inductor.aoti_load_package(package_path)
    with torch.no_grad():
        aotinductor_compiled_output = compiled_runner(inference_input)

    # Reference output: copy model and set silu_op to pytorch_silu_eager
    reference_model = copy.deepcopy(model)
    reference_model.silu_op = "pytorch_silu_eager"
    reference_model.eval()
    with torch.no_grad():
        eager_output = reference_model(inference_input)

    is_torch_compile_correct = torch.allclose(torch_compiled_output, eager_output, atol=atol, rtol=rtol)
    is_aotinductor_correct = torch.allclose(aotinductor_compiled_output, eager_output, atol=atol, rtol=rtol)
    is_outputs_match = torch.allclose(torch_compiled_output, aotinductor_compiled_output, atol=atol, rtol=rtol)

    print(f"torch_compiled_model output shape: {torch_compiled_output.shape}")
    print(f"aotinductor_compiled_model output shape: {aotinductor_compiled_output.shape}")
    print(f"eager_output shape: {eager_output.shape}")
    print(f"torch.compile correctness vs eager? -> {is_torch_compile_correct} ")
    print(f"aotinductor correctness vs eager? -> {is_aotinductor_correct} ")
    print(f"torch.compile vs aotinductor match? -> {is_outputs_match} ")

    # --- Run profiling at the end of the program ---
    # Define file paths for profiling traces
    torch_compile_profiler_path = "./torch_compile_profiler.json"
    aotinductor_profiler_path = "./aotinductor_profiler.json"

    print("\n--- Running torch_compiled_model (fullgraph=True) with profiler ---")
    activities = [
        torch.profiler.ProfilerActivity.CPU,
        torch.profiler.ProfilerActivity.CUDA,
    ]
    warmup = 3
    steps = 5
    schedule = torch.profiler.schedule(wait=0, warmup=warmup, active=steps, repeat=1)
    with torch.profiler.profile(
        activities=activities,
        schedule=schedule,
        record_shapes=True,
        with_flops=True,
    ) as prof:
        for step in range(warmup + steps):
            with torch.profiler.record_function(f"step_{step}"):
                with torch.no_grad():
                    torch_compiled_output = torch_compiled_model(inference_input)
            prof.step()
    prof.export_chrome_trace(torch_compile_profiler_path)
    print(f"Profiling trace for torch_compiled_model saved to {torch_compile_profiler_path}")

    print("\n--- Loading AOTInductor Compiled Model Package & Running Inference with profiler ---")
    compiled_runner = torch._inductor.aoti_load_package(package_path)
    with torch.profiler.profile(
        activities=activities,
        schedule=schedule,
        record_shapes=True,
        with_flops=True,
    ) as prof:
        for step in range(warmup + steps):
            with torch.profiler.record_function(f"step_{step}"):
                with torch.no_grad():
                    aotinductor_compiled_output = compiled_runner(inference_input)
            prof.step()
    prof.export_chrome_trace(aotinductor_profiler_path)
    print(f"Profiling trace for aotinductor_compiled_output saved to {aotinductor_profiler_path}")


if __name__ == "__main__":
    main()
