// RecordPool<T>: reusable records handed out by counted reference, so a
// record type with strings and vectors (e.g. a script request in flight) can
// be used over and over without allocating. acquire() returns a Ref to a
// spare record (or a new one); when its last Ref goes away the record goes
// back to the spares *as it is*: its members keep their contents and buffers,
// and the next user assigns what it needs (assigning into a string or vector
// reuses its buffer). A user that must not keep something alive in a spare
// record (a callback's captures) clears it itself.
//
// Contract: the pool outlives every Ref (declare it before whatever holds
// Refs). Single-threaded, like the simulator; a Ref is 8 bytes.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace locksim {

template <class T>
class RecordPool {
  struct Node {
    T value{};
    uint32_t refs = 0;
    RecordPool* pool = nullptr;
  };

 public:
  class Ref {
   public:
    Ref() = default;
    Ref(const Ref& other) : node_(other.node_) {
      if (node_ != nullptr) node_->refs++;
    }
    Ref(Ref&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
    Ref& operator=(Ref other) noexcept {
      std::swap(node_, other.node_);
      return *this;
    }
    ~Ref() {
      if (node_ != nullptr && --node_->refs == 0) node_->pool->spare_.push_back(node_);
    }

    explicit operator bool() const { return node_ != nullptr; }
    T& operator*() const {
      assert(node_ != nullptr);
      return node_->value;
    }
    T* operator->() const {
      assert(node_ != nullptr);
      return &node_->value;
    }

   private:
    friend class RecordPool;
    explicit Ref(Node* node) : node_(node) { node_->refs = 1; }
    Node* node_ = nullptr;
  };

  RecordPool() = default;
  RecordPool(const RecordPool&) = delete;
  RecordPool& operator=(const RecordPool&) = delete;

  // A record nobody else holds, with whatever its last user left in it.
  Ref acquire() {
    Node* node = nullptr;
    if (spare_.empty()) {
      all_.push_back(std::make_unique<Node>());
      node = all_.back().get();
      node->pool = this;
    } else {
      node = spare_.back();
      spare_.pop_back();
      assert(node->refs == 0);
    }
    return Ref(node);
  }

  size_t records() const { return all_.size(); }
  size_t spare() const { return spare_.size(); }

 private:
  std::vector<std::unique_ptr<Node>> all_;
  std::vector<Node*> spare_;
};

}  // namespace locksim
