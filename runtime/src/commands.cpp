// Command encoder, compute pass (dispatch-time validation R7, R11, R12) and submit. A dispatch,
// copy or clear gets a full compute/transfer barrier when it touches bytes an earlier command
// since the last barrier wrote, or writes bytes one read (HazardTracker below).
#include <algorithm>

#include "internal.hpp"
#include "wgslvk/reusable.hpp"

namespace wgslvk {

namespace {
std::string num(uint64_t v) { return std::to_string(v); }

std::string range_str(uint64_t off, uint64_t size) {
  return "[" + num(off) + ", " + num(off + size) + ")";
}

void require_no_pass(const EncoderImpl& e, const char* op) {
  if (e.finished)
    throw ValidationError("state", std::string(op) + ": " + quoted("CommandEncoder", e.label) +
                                       " is already finished");
  if (e.pass_open)
    throw ValidationError("state", std::string(op) + ": " + quoted("CommandEncoder", e.label) +
                                       " has an open compute pass (" + e.pass_name() + ")");
}

void require_pass(const std::shared_ptr<EncoderImpl>& e, const char* op) {
  if (!e || !e->pass_open)
    throw ValidationError("state", std::string(op) + ": the compute pass has ended");
}

void check_query(const EncoderImpl& e, const QuerySet& set, uint32_t index,
                 const std::string& where) {
  if (!e.core->has(Feature::TimestampQuery))
    throw ValidationError("feature", where + ": timestamps need the \"timestamp-query\" feature");
  if (!impl_of(set)) throw ValidationError("state", where + ": null query set");
  if (impl_of(set)->core != e.core)
    throw ValidationError("state", where + ": " + quoted("QuerySet", impl_of(set)->label) +
                                       " belongs to a different device");
  if (index >= impl_of(set)->count)
    throw ValidationError("range", where + ": query index (" + num(index) + ") is not below " +
                                       quoted("QuerySet", impl_of(set)->label) + " count (" +
                                       num(impl_of(set)->count) + ")");
}
}  // namespace

std::string EncoderImpl::pass_name() const { return quoted("ComputePass", pass_label); }

CommandEncoder Device::create_command_encoder(const CommandEncoderDescriptor& desc) {
  require_live(impl_, "Device::create_command_encoder");
  auto e = std::make_shared<EncoderImpl>();
  e->core = impl_->core;
  e->label = desc.label;
  if (e->core->trace) e->core->trace->encoder(*e);
  CommandEncoder out;
  impl_of(out) = e;
  return out;
}

CommandEncoder create_reusable_command_encoder(Device& device, const std::string& label) {
  require_live(impl_of(device), "create_reusable_command_encoder");
  if (impl_of(device)->core->trace)
    throw ValidationError("state", quoted("CommandEncoder", label) +
                                       ": reusable command buffers are not traced (a WebGPU "
                                       "replay submits a buffer once); ask is_traced() first");
  CommandEncoder enc = device.create_command_encoder({label});
  impl_of(enc)->reusable = true;
  return enc;
}

ComputePass CommandEncoder::begin_compute_pass(const ComputePassDescriptor& desc) {
  require_live(impl_, "CommandEncoder::begin_compute_pass");
  require_no_pass(*impl_, "begin_compute_pass");
  std::string where = quoted("ComputePass", desc.label);
  if (desc.timestamp_writes) {
    const auto& tw = *desc.timestamp_writes;
    if (tw.beginning_of_pass_write_index)
      check_query(*impl_, tw.query_set, *tw.beginning_of_pass_write_index,
                  where + " timestampWrites");
    if (tw.end_of_pass_write_index)
      check_query(*impl_, tw.query_set, *tw.end_of_pass_write_index, where + " timestampWrites");
    if (!tw.beginning_of_pass_write_index && !tw.end_of_pass_write_index)
      throw ValidationError("state",
                            where + " timestampWrites names neither a beginning nor an end index");
    if (tw.beginning_of_pass_write_index &&
        tw.beginning_of_pass_write_index == tw.end_of_pass_write_index)
      throw ValidationError("state", where + " timestampWrites uses index " +
                                         num(*tw.end_of_pass_write_index) +
                                         " for both beginning and end");
    if (tw.beginning_of_pass_write_index)
      impl_->commands.push_back(
          TimestampCmd{impl_of(tw.query_set), *tw.beginning_of_pass_write_index, true});
  }
  impl_->pass_open = true;
  impl_->pass_label = desc.label;
  impl_->pass_timestamps = desc.timestamp_writes;
  impl_->pipeline.reset();
  impl_->groups.clear();
  if (impl_->core->trace) impl_->core->trace->begin_pass(*impl_, desc.label);
  ComputePass p;
  impl_of(p) = impl_;
  return p;
}

void ComputePass::set_pipeline(const ComputePipeline& pipeline) {
  require_pass(impl_, "set_pipeline");
  if (!pipeline)
    throw ValidationError("state", impl_->pass_name() + " set_pipeline: null pipeline");
  if (impl_of(pipeline)->core != impl_->core)
    throw ValidationError("state", impl_->pass_name() + " set_pipeline: " +
                                       quoted("ComputePipeline", impl_of(pipeline)->label) +
                                       " belongs to a different device");
  impl_->pipeline = impl_of(pipeline);
  if (impl_->core->trace) impl_->core->trace->set_pipeline(*impl_, *impl_of(pipeline));
}

void ComputePass::set_bind_group(uint32_t index, const BindGroup& group) {
  require_pass(impl_, "set_bind_group");
  const Limits& lim = impl_->core->limits;
  if (index >= lim.max_bind_groups)
    throw ValidationError("limits", impl_->pass_name() + " set_bind_group: index (" + num(index) +
                                        ") is not below maxBindGroups (" +
                                        num(lim.max_bind_groups) + ")");
  if (!group)
    throw ValidationError(
        "state", impl_->pass_name() + " set_bind_group(" + num(index) + "): null bind group");
  if (impl_of(group)->core != impl_->core)
    throw ValidationError("state", impl_->pass_name() + " set_bind_group: " +
                                       quoted("BindGroup", impl_of(group)->label) +
                                       " belongs to a different device");
  if (impl_->groups.size() <= index) impl_->groups.resize(index + 1);
  impl_->groups[index] = impl_of(group);
  if (impl_->core->trace) impl_->core->trace->set_bind_group(*impl_, index, *impl_of(group));
}

void ComputePass::dispatch_workgroups(uint32_t x, uint32_t y, uint32_t z) {
  require_pass(impl_, "dispatch_workgroups");
  auto& e = *impl_;
  const Limits& lim = e.core->limits;
  std::string where =
      e.pass_name() + " dispatch_workgroups(" + num(x) + ", " + num(y) + ", " + num(z) + ")";
  if (!e.pipeline) throw ValidationError("state", where + ": no pipeline set");
  const PipelineImpl& p = *e.pipeline;
  where += " with " + quoted("ComputePipeline", p.label);

  // R12: never split silently.
  const char* axis[3] = {"x", "y", "z"};
  uint32_t counts[3] = {x, y, z};
  for (int i = 0; i < 3; ++i)
    if (counts[i] > lim.max_compute_workgroups_per_dimension)
      throw ValidationError("R12", where + ": workgroup count " + axis[i] + " (" + num(counts[i]) +
                                       ") is larger than maxComputeWorkgroupsPerDimension (" +
                                       num(lim.max_compute_workgroups_per_dimension) +
                                       "); use a 2-D grid (grid_for_workgroups) and flat_id");

  std::vector<std::shared_ptr<BindGroupImpl>> used(p.groups.size());
  struct Use {
    uint32_t group;
    const BoundBuffer* b;
  };
  std::vector<Use> uses;
  for (uint32_t g = 0; g < p.groups.size(); ++g) {
    const auto& pl = *p.groups[g];
    if (pl.entries.empty()) continue;
    if (g >= e.groups.size() || !e.groups[g])
      throw ValidationError("state", where + ": no bind group set at index " + num(g));
    const auto& bg = *e.groups[g];
    if (!bg.layout->same_as(pl))
      throw ValidationError("state", where + ": " + quoted("BindGroup", bg.label) + " at index " +
                                         num(g) + " was made with " +
                                         quoted("BindGroupLayout", bg.layout->label) +
                                         ", which is not compatible with the pipeline's " +
                                         quoted("BindGroupLayout", pl.label));
    used[g] = e.groups[g];
    for (const auto& bb : bg.bound) {
      uses.push_back({g, &bb});
      // R7 at dispatch: a layout minBindingSize of 0 defers to the shader's minimum.
      const BindGroupLayoutEntry* le = pl.find(bb.binding);
      if (le && le->min_binding_size == 0) {
        for (const auto& kb : p.kernel->bindings)
          if (kb.group == g && kb.binding == bb.binding && kb.statically_used &&
              bb.size < kb.min_binding_size)
            throw ValidationError("R7", where + ": " + quoted("BindGroup", bg.label) + " binding " +
                                            num(bb.binding) + " ('" + std::string(kb.name) +
                                            "') is bound to " + num(bb.size) + " bytes of " +
                                            quoted("Buffer", bb.buffer->label) +
                                            ", smaller than the shader's minimum binding size (" +
                                            num(kb.min_binding_size) + ")");
      }
    }
  }
  // R11: writable aliasing within this dispatch.
  for (size_t i = 0; i < uses.size(); ++i)
    for (size_t j = i + 1; j < uses.size(); ++j) {
      const BoundBuffer& a = *uses[i].b;
      const BoundBuffer& b = *uses[j].b;
      if (a.buffer != b.buffer) continue;
      bool wa = a.type == BindingType::Storage, wb = b.type == BindingType::Storage;
      if (!wa && !wb) continue;
      bool overlap = a.offset < b.offset + b.size && b.offset < a.offset + a.size;
      if (wa && wb && !overlap) continue;
      auto desc = [&](const Use& u) {
        return "group " + num(u.group) + " binding " + num(u.b->binding) + " (" +
               std::string(binding_type_name(u.b->type)) + ", " +
               range_str(u.b->offset, u.b->size) + ")";
      };
      throw ValidationError("R11", where + ": " + quoted("Buffer", a.buffer->label) +
                                       " is bound at " + desc(uses[i]) + " and at " +
                                       desc(uses[j]) +
                                       (wa && wb ? ": overlapping writable ranges"
                                                 : ": a writable binding aliases a "
                                                   "read-only/uniform binding of the same buffer"));
    }
  e.commands.push_back(DispatchCmd{e.pipeline, std::move(used), x, y, z});
  if (e.core->trace) e.core->trace->dispatch(e, x, y, z);
}

void ComputePass::write_timestamp(const QuerySet& set, uint32_t index) {
  require_pass(impl_, "write_timestamp");
  check_query(*impl_, set, index, impl_->pass_name() + " write_timestamp");
  impl_->commands.push_back(TimestampCmd{impl_of(set), index});
}

void ComputePass::end() {
  require_pass(impl_, "end");
  auto& e = *impl_;
  if (e.pass_timestamps && e.pass_timestamps->end_of_pass_write_index)
    e.commands.push_back(TimestampCmd{impl_of(e.pass_timestamps->query_set),
                                      *e.pass_timestamps->end_of_pass_write_index});
  e.pass_open = false;
  if (e.core->trace) e.core->trace->end_pass(e);
  e.pass_timestamps.reset();
  e.pipeline.reset();
  e.groups.clear();
  impl_.reset();  // a pass is single-use
}

void CommandEncoder::copy_buffer_to_buffer(const Buffer& src, uint64_t src_offset,
                                           const Buffer& dst, uint64_t dst_offset, uint64_t size) {
  require_live(impl_, "CommandEncoder::copy_buffer_to_buffer");
  require_no_pass(*impl_, "copy_buffer_to_buffer");
  if (!src || !dst) throw ValidationError("state", "copy_buffer_to_buffer: null buffer");
  auto& s = *impl_of(src);
  auto& d = *impl_of(dst);
  std::string where = "copy_buffer_to_buffer(" + quoted("Buffer", s.label) + " @" +
                      num(src_offset) + " -> " + quoted("Buffer", d.label) + " @" +
                      num(dst_offset) + ", " + num(size) + " bytes)";
  if (s.core != impl_->core || d.core != impl_->core)
    throw ValidationError("state", where + ": a buffer belongs to a different device");
  if (!has(s.usage, BufferUsage::CopySrc))
    throw ValidationError("usage", where + ": source lacks CopySrc usage");
  if (!has(d.usage, BufferUsage::CopyDst))
    throw ValidationError("usage", where + ": destination lacks CopyDst usage");
  if (src_offset % 4 || dst_offset % 4 || size % 4)
    throw ValidationError("alignment", where + ": offsets and size must be multiples of 4");
  if (src_offset > s.size || size > s.size - src_offset)
    throw ValidationError("range", where + ": source range " + range_str(src_offset, size) +
                                       " does not fit its size (" + num(s.size) + ")");
  if (dst_offset > d.size || size > d.size - dst_offset)
    throw ValidationError("range", where + ": destination range " + range_str(dst_offset, size) +
                                       " does not fit its size (" + num(d.size) + ")");
  if (&s == &d)
    throw ValidationError("state", where + ": source and destination are the same buffer");
  if (size)
    impl_->commands.push_back(CopyCmd{impl_of(src), impl_of(dst), src_offset, dst_offset, size});
  if (size && impl_->core->trace)
    impl_->core->trace->copy(*impl_, s, src_offset, d, dst_offset, size);
}

void CommandEncoder::clear_buffer(const Buffer& buffer, uint64_t offset,
                                  std::optional<uint64_t> size_opt) {
  require_live(impl_, "CommandEncoder::clear_buffer");
  require_no_pass(*impl_, "clear_buffer");
  if (!buffer) throw ValidationError("state", "clear_buffer: null buffer");
  auto& b = *impl_of(buffer);
  std::string where = "clear_buffer(" + quoted("Buffer", b.label) + ")";
  if (b.core != impl_->core)
    throw ValidationError("state", where + ": buffer belongs to a different device");
  if (!has(b.usage, BufferUsage::CopyDst))
    throw ValidationError("usage", where + ": buffer lacks CopyDst usage");
  if (offset > b.size)
    throw ValidationError("range", where + ": offset (" + num(offset) +
                                       ") is past the buffer's size (" + num(b.size) + ")");
  uint64_t size = size_opt.value_or(b.size - offset);
  if (offset % 4 || size % 4)
    throw ValidationError("alignment", where + ": offset (" + num(offset) + ") and size (" +
                                           num(size) + ") must be multiples of 4");
  if (size > b.size - offset)
    throw ValidationError("range", where + ": range " + range_str(offset, size) +
                                       " does not fit the buffer's size (" + num(b.size) + ")");
  if (size) impl_->commands.push_back(ClearCmd{impl_of(buffer), offset, size});
  if (size && impl_->core->trace) impl_->core->trace->clear(*impl_, b, offset, size);
}

CommandBuffer CommandEncoder::finish() {
  require_live(impl_, "CommandEncoder::finish");
  require_no_pass(*impl_, "finish");
  impl_->finished = true;
  auto cb = std::make_shared<CommandBufferImpl>();
  cb->core = impl_->core.get();
  cb->label = impl_->label;
  cb->commands = std::move(impl_->commands);
  cb->reusable = impl_->reusable;
  if (impl_->core->trace) impl_->core->trace->finish(*impl_, *cb);
  CommandBuffer out;
  impl_of(out) = cb;
  return out;
}

namespace {
// WebGPU orders every command after the ones before it. Vulkan needs a barrier for that only
// where two commands touch the same bytes and one of them writes (read-after-write,
// write-after-write, write-after-read), so commands on unrelated ranges -- the per-tensor
// updates of disjoint sub-ranges, a copy beside a kernel -- may overlap, as under Dawn. A storage
// binding counts as written (the shader may write it); uniforms and read-only storage as read.
struct Access {
  const BufferImpl* buffer;
  uint64_t offset, size;
  bool write;
};

std::vector<Access> accesses_of(const Command& c) {
  std::vector<Access> out;
  if (auto* d = std::get_if<DispatchCmd>(&c)) {
    for (const auto& g : d->groups)
      if (g)
        for (const auto& b : g->bound)
          out.push_back({b.buffer.get(), b.offset, b.size, b.type == BindingType::Storage});
  } else if (auto* cp = std::get_if<CopyCmd>(&c)) {
    out.push_back({cp->src.get(), cp->src_offset, cp->size, false});
    out.push_back({cp->dst.get(), cp->dst_offset, cp->size, true});
  } else if (auto* cl = std::get_if<ClearCmd>(&c)) {
    out.push_back({cl->buffer.get(), cl->offset, cl->size, true});
  }
  return out;
}

// The ranges touched since the last barrier.
class HazardTracker {
 public:
  bool needs_barrier(const std::vector<Access>& next) const {
    for (const Access& a : next)
      for (const Access& p : pending_)
        if (a.buffer == p.buffer && (a.write || p.write) && a.offset < p.offset + p.size &&
            p.offset < a.offset + a.size)
          return true;
    return false;
  }
  void record(const std::vector<Access>& done) {
    pending_.insert(pending_.end(), done.begin(), done.end());
  }
  void clear() { pending_.clear(); }

 private:
  std::vector<Access> pending_;
};

// Records `all` into `cmd`, a barrier only where two commands touch the same bytes and one
// writes. The caller has put a full barrier before it.
void record_commands(VkCommandBuffer cmd, std::vector<Command>& all) {
  // Each command's accesses, once: a pass's first command is also looked at from its pass's
  // beginning timestamp.
  std::vector<std::vector<Access>> acc;
  acc.reserve(all.size());
  for (const Command& c : all) acc.push_back(accesses_of(c));
  HazardTracker hazards;
  auto barrier_if_needed = [&](const std::vector<Access>& next) {
    if (hazards.needs_barrier(next)) {
      full_barrier(cmd);
      hazards.clear();
    }
  };
  for (size_t k = 0; k < all.size(); ++k) {
    Command& c = all[k];
    if (auto* t = std::get_if<TimestampCmd>(&c)) {
      // A barrier the pass's first command needs goes before the pass's beginning timestamp,
      // not inside the timed region (it cost a few microseconds of every small kernel on an
      // H200).
      if (t->pass_begin)
        for (size_t j = k + 1; j < all.size(); ++j)
          if (!std::holds_alternative<TimestampCmd>(all[j])) {
            barrier_if_needed(acc[j]);
            break;
          }
      // A query must be reset before each write, also when written twice in one submission.
      vkCmdResetQueryPool(cmd, t->set->pool, t->index, 1);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->set->pool, t->index);
      t->set->written[t->index] = true;
      continue;
    }
    barrier_if_needed(acc[k]);
    hazards.record(acc[k]);
    if (auto* d = std::get_if<DispatchCmd>(&c)) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipeline->pipeline);
      for (uint32_t g = 0; g < d->groups.size(); ++g)
        if (d->groups[g])
          vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipeline->layout, g, 1,
                                  &d->groups[g]->set, 0, nullptr);
      vkCmdDispatch(cmd, d->x, d->y, d->z);
    } else if (auto* cp = std::get_if<CopyCmd>(&c)) {
      VkBufferCopy region{cp->src_offset, cp->dst_offset, cp->size};
      vkCmdCopyBuffer(cmd, cp->src->buffer, cp->dst->buffer, 1, &region);
    } else if (auto* cl = std::get_if<ClearCmd>(&c)) {
      vkCmdFillBuffer(cmd, cl->buffer->buffer, cl->offset, cl->size, 0);
    }
  }
}
}  // namespace

CommandBufferImpl::~CommandBufferImpl() {
  if (pool) vkDestroyCommandPool(owner->device, pool, nullptr);  // frees `recorded`
}

void Queue::submit(std::span<const CommandBuffer> buffers) {
  require_live(impl_, "Queue::submit");
  std::vector<Command> all;
  for (const auto& cb : buffers) {
    if (!impl_of(cb)) throw ValidationError("state", "submit: null command buffer");
    if (impl_of(cb)->core != impl_->core.get())
      throw ValidationError("state", "submit: " + quoted("CommandBuffer", impl_of(cb)->label) +
                                         " was encoded for a different device");
    if (impl_of(cb)->reusable && buffers.size() != 1)
      throw ValidationError("state", "submit: " + quoted("CommandBuffer", impl_of(cb)->label) +
                                         " is reusable and is submitted alone");
    if (impl_of(cb)->submitted && !impl_of(cb)->reusable)
      throw ValidationError("state", "submit: " + quoted("CommandBuffer", impl_of(cb)->label) +
                                         " was already submitted");
  }
  if (buffers.size() == 1 && impl_of(buffers[0])->reusable) {
    const auto& cb = impl_of(buffers[0]);
    std::lock_guard lock(impl_->mutex);
    if (!cb->recorded) {
      // Its own pool: the buffer lives as long as the handle, apart from the device's
      // allocate-per-submission pool. Simultaneous use: the host may resubmit it while the GPU
      // still runs the previous submission of it.
      cb->owner = impl_->core;
      VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
      pci.queueFamilyIndex = impl_->core->adapter->queue_family;
      check_vk(vkCreateCommandPool(impl_->core->device, &pci, nullptr, &cb->pool),
               "vkCreateCommandPool");
      VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      ai.commandPool = cb->pool;
      ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      ai.commandBufferCount = 1;
      check_vk(vkAllocateCommandBuffers(impl_->core->device, &ai, &cb->recorded),
               "vkAllocateCommandBuffers");
      VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      bi.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
      check_vk(vkBeginCommandBuffer(cb->recorded, &bi), "vkBeginCommandBuffer");
      record_commands(cb->recorded, cb->commands);
      check_vk(vkEndCommandBuffer(cb->recorded), "vkEndCommandBuffer");
    }
    cb->submitted = true;
    // The commands stay with the buffer (it retains what they use); the submission retains it.
    impl_->submit_locked([](VkCommandBuffer) {}, {}, false, cb);
    return;
  }
  if (impl_->core->trace) {
    std::vector<const CommandBufferImpl*> cbs;
    for (const auto& cb : buffers) cbs.push_back(impl_of(cb).get());
    impl_->core->trace->submit(cbs);
  }
  for (const auto& cb : buffers) {
    impl_of(cb)->submitted = true;
    for (auto& c : impl_of(cb)->commands) all.push_back(std::move(c));
    impl_of(cb)->commands.clear();
  }
  if (all.empty()) return;
  std::lock_guard lock(impl_->mutex);
  impl_->submit_locked([&](VkCommandBuffer cmd) { record_commands(cmd, all); }, all,
                       false);  // a copy: the record lambda reads `all` after `retained` is built
}

}  // namespace wgslvk
